/**
 * The compiler's view of code using the client typed by what `restock types` writes for the
 * example store: test/client-types.test.ts and test/client-reads.test.ts.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { recordTypes } from '../../src/commands/types.js';
import { strictProgram } from './strict-program.js';

/** The client's entry, for a usage importing more than `createClient`. */
export const CLIENT = fileURLToPath(new URL('../../packages/client/src/index.js', import.meta.url));

/** The compiler's complaints about `usage`, a module beside the generated types. */
export async function diagnostics(usage: string): Promise<string[]> {
  const dir = mkdtempSync(join(tmpdir(), 'restock-client-types-'));
  writeFileSync(join(dir, 'store.ts'), await recordTypes('schemas/shop'));
  writeFileSync(join(dir, 'usage.ts'), `import { createClient } from '${CLIENT}';\n${usage}`);
  const program = strictProgram([join(dir, 'usage.ts')], { types: ['node'] });
  const found = ts
    .getPreEmitDiagnostics(program)
    .map((d) => `${d.file ? d.file.getLineAndCharacterOfPosition(d.start ?? 0).line : '-'}: ${message(d)}`)
    .filter((text) => !text.includes('allowImportingTsExtensions'));
  rmSync(dir, { recursive: true, force: true });
  return found;
}

const message = (d: ts.Diagnostic) => ts.flattenDiagnosticMessageText(d.messageText, '\n');

/** The example store's client, `shop`, its `products` and `orders`, inside `use()` (close it with `}`). */
export const PREAMBLE = `import type { Collections, References } from './store.js';
import type { CreateOptions, GetOptions, ListOptions, Page, RequestOptions, Stored, WriteOptions } from '${CLIENT}';
const shop = createClient<Collections, References>({ baseUrl: 'http://127.0.0.1:3000' });
const products = shop.collection('products');
const orders = shop.collection('orders');
export async function use() {`;
