/**
 * A tiny TypeScript project that uses an installed client package, compiled under each
 * `moduleResolution` a consumer may have: the package's types must be found (and checked:
 * the `@ts-expect-error` fails when the import resolved to `any`) under every one.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import ts from 'typescript';

export const RESOLUTIONS = ['node10', 'node16', 'nodenext', 'bundler'] as const;
export type Resolution = (typeof RESOLUTIONS)[number];

const SETTINGS: Record<Resolution, { file: string; options: ts.CompilerOptions }> = {
  // node10 reads `types` and `typesVersions`, never `exports`; TypeScript 6 deprecates it.
  node10: {
    file: 'node10.ts',
    options: {
      module: ts.ModuleKind.ESNext,
      moduleResolution: ts.ModuleResolutionKind.Node10,
      ignoreDeprecations: '6.0',
    },
  },
  node16: {
    file: 'node16.mts',
    options: { module: ts.ModuleKind.Node16, moduleResolution: ts.ModuleResolutionKind.Node16 },
  },
  nodenext: {
    file: 'nodenext.mts',
    options: { module: ts.ModuleKind.NodeNext, moduleResolution: ts.ModuleResolutionKind.NodeNext },
  },
  bundler: {
    file: 'bundler.ts',
    options: { module: ts.ModuleKind.ESNext, moduleResolution: ts.ModuleResolutionKind.Bundler },
  },
};

const usage = (specifier: string) => `import { createClient, ProblemError, type WriteOptions } from '${specifier}';

const shop = createClient<{ products: { name: string; price?: number } }>({ baseUrl: 'http://127.0.0.1:3000' });

export async function cheapest(options: WriteOptions): Promise<unknown[]> {
  const page = await shop.collection('products').page({ sort: 'price', limit: 1, count: true });
  return [page.records[0]?.name, page.total, options, ProblemError];
}

// @ts-expect-error: the types are the client's, which know no field "nope"
void shop.collection('products').page({ sort: '-nope' });
`;

/** The compiler's complaints about a module in `dir` importing `specifier`, under `resolution`. */
export function consumerDiagnostics(dir: string, specifier: string, resolution: Resolution): string[] {
  const { file, options } = SETTINGS[resolution];
  const path = join(dir, `${specifier.replace(/\W/g, '-')}-${file}`);
  writeFileSync(path, usage(specifier));
  const program = ts.createProgram([path], {
    ...options,
    strict: true,
    noEmit: true,
    target: ts.ScriptTarget.ES2022,
    lib: ['lib.es2022.d.ts', 'lib.dom.d.ts', 'lib.dom.iterable.d.ts'],
    types: [],
    skipLibCheck: false,
  });
  return ts
    .getPreEmitDiagnostics(program)
    .map((d) => `${resolution}: ${ts.flattenDiagnosticMessageText(d.messageText, '\n')}`);
}
