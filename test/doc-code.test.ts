/**
 * The TypeScript in the documents compiles: every ```ts and ```typescript block of the README,
 * the client's README, docs/ and CONTRIBUTING.md is a module of its own, type-checked (strict)
 * beside the types `restock types` writes for the example store (as `./shop.js`), importing the
 * client by its package name. A block written as a fragment of a longer program says so with
 * `<!-- ts-prelude: NAME -->` on a line just before it, naming one of PRELUDES below, which
 * is put before it; no block is left out. (```js blocks are JavaScript, not checked here:
 * test/readme.test.ts runs the README's fetch example against a server.)
 */
import assert from 'node:assert/strict';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { recordTypes } from '../src/commands/types.js';
import { strictProgram } from './helpers/strict-program.js';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const CLIENT = join(ROOT, 'packages/client/src/index.js');
/** The client's package name, whatever it is: the blocks import it as a reader would. */
const CLIENT_NAME = (JSON.parse(readFileSync(join(ROOT, 'packages/client/package.json'), 'utf8')) as { name: string })
  .name;

const DOCUMENTS = [
  'README.md',
  'packages/client/README.md',
  'CONTRIBUTING.md',
  ...readdirSync(join(ROOT, 'docs'))
    .filter((name) => name.endsWith('.md'))
    .map((name) => `docs/${name}`),
];

const CLIENT_IMPORT = `import { createClient, ProblemError } from '${CLIENT_NAME}';
import type { Collections, References } from './shop.js';
/** The application's own: reload what it holds after the change feed's reset. */
declare function reload(): void;`;

/** What a fragment takes as given, by the name its marker gives. */
const PRELUDES: Record<string, string> = {
  /** The client's imports (and the reader's own `reload`). */
  client: CLIENT_IMPORT,
  /** A client of the example store, `shop`, as the client's README makes it first. */
  shop: `${CLIENT_IMPORT}
const shop = createClient<Collections, References>({ baseUrl: 'https://shop.example', apiKey: '…' });`,
  /** The same, and its `products`, as the client's README's "Records" section makes it. */
  products: `${CLIENT_IMPORT}
const shop = createClient<Collections, References>({ baseUrl: 'https://shop.example', apiKey: '…' });
const products = shop.collection('products');`,
};

interface Block {
  /** Where it is: the document and the line of its opening fence. */
  readonly where: string;
  readonly document: string;
  readonly line: number;
  readonly code: string;
  readonly prelude: string | undefined;
}

const FENCE = /^```(ts|typescript)\s*$/;
const MARKER = /^<!--\s*ts-prelude:\s*([\w-]+)\s*-->$/;

/** Each TypeScript block of `document`, with the prelude its marker names (the line before, blank lines aside). */
function blocksOf(document: string): Block[] {
  const lines = readFileSync(join(ROOT, document), 'utf8').split('\n');
  const blocks: Block[] = [];
  for (let i = 0; i < lines.length; i++) {
    const opening = lines[i] ?? '';
    if (!opening.startsWith('```')) continue;
    const end = lines.findIndex((line, j) => j > i && line.startsWith('```'));
    assert.ok(end > i, `${document}:${i + 1}: a fence never closed`);
    if (FENCE.test(opening)) {
      let before = i - 1;
      while (before >= 0 && lines[before]?.trim() === '') before--;
      const prelude = MARKER.exec(lines[before]?.trim() ?? '')?.[1];
      const code = lines.slice(i + 1, end).join('\n');
      blocks.push({ where: `${document}:${i + 1}`, document, line: i + 1, code, prelude });
    }
    i = end;
  }
  return blocks;
}

/** The compiler's complaints about every block, each placed at its line in its document. */
async function typeCheck(blocks: readonly Block[]): Promise<string[]> {
  const dir = mkdtempSync(join(tmpdir(), 'restock-doc-code-'));
  try {
    writeFileSync(join(dir, 'package.json'), '{ "type": "module" }\n');
    writeFileSync(join(dir, 'shop.ts'), await recordTypes('schemas/shop'));
    const files = blocks.map((block, index) => {
      const prelude = block.prelude === undefined ? '' : `${PRELUDES[block.prelude]}\n`;
      const file = join(dir, `block-${index}.ts`);
      // `export {}` makes even a block with no import a module (its own scope, top-level await).
      writeFileSync(file, `${prelude}${block.code}\nexport {};\n`);
      return { file, block, offset: prelude === '' ? 0 : prelude.split('\n').length - 1 };
    });
    const program = strictProgram(
      files.map((f) => f.file),
      {
        lib: ['lib.es2023.d.ts', 'lib.dom.d.ts', 'lib.dom.iterable.d.ts'],
        types: ['node'],
        paths: { [CLIENT_NAME]: [CLIENT] },
      },
    );
    return ts.getPreEmitDiagnostics(program).flatMap((d) => {
      const text = ts.flattenDiagnosticMessageText(d.messageText, '\n');
      const at = files.find((f) => f.file === d.file?.fileName);
      if (!at) return [`${d.file?.fileName ?? '(no file)'}: ${text}`];
      const line = d.file?.getLineAndCharacterOfPosition(d.start ?? 0).line ?? 0;
      const where =
        line < at.offset ? `its prelude "${at.block.prelude}"` : `line ${at.block.line + 1 + line - at.offset}`;
      return [`${at.block.document}, ${where}: ${text}`];
    });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

describe('the TypeScript in the documents', () => {
  const blocks = DOCUMENTS.flatMap(blocksOf);

  it('is found where the documents have it, each fragment naming a prelude there is', () => {
    const counted = (document: string) => blocks.filter((b) => b.document === document).length;
    // The README's two walk-throughs and the client's README at least; fewer means the extraction broke.
    assert.ok(counted('README.md') >= 2, blocks.map((b) => b.where).join('\n'));
    assert.ok(counted('packages/client/README.md') >= 6, blocks.map((b) => b.where).join('\n'));
    for (const block of blocks) {
      if (block.prelude !== undefined)
        assert.ok(block.prelude in PRELUDES, `${block.where}: no prelude "${block.prelude}"`);
    }
  });

  it('compiles, strict, against the client and the example store’s types', async () => {
    assert.deepEqual(await typeCheck(blocks), []);
  });

  it('would catch a block that does not compile, at its line in its document', async () => {
    const broken: Block = {
      where: 'README.md:10',
      document: 'README.md',
      line: 10,
      code: "const products = shop.collection('products');\nawait products.create({ name: 'Cup', prise: 3 });",
      prelude: 'shop',
    };
    const found = await typeCheck([broken]);
    assert.equal(found.length, 1, found.join('\n'));
    assert.match(found[0] ?? '', /^README\.md, line 12: [\s\S]*'prise' does not exist/);
  });
});
