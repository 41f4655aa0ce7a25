/**
 * `npm run client:types`: the types it writes for a schema folder's collections type the
 * client's records, so that TypeScript accepts what the schema allows and refuses what it does
 * not (checked by the TypeScript compiler on a file that uses them).
 */
import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { clientTypes } from '../scripts/client-types.js';

const CLIENT = fileURLToPath(new URL('../src/client/index.js', import.meta.url));

/** The compiler's complaints about `usage`, a module beside the generated types. */
async function diagnostics(usage: string): Promise<string[]> {
  const dir = mkdtempSync(join(tmpdir(), 'restock-client-types-'));
  writeFileSync(join(dir, 'store.ts'), await clientTypes('schemas/shop'));
  writeFileSync(join(dir, 'usage.ts'), `import { createClient } from '${CLIENT}';\n${usage}`);
  const program = ts.createProgram([join(dir, 'usage.ts')], {
    strict: true,
    noEmit: true,
    target: ts.ScriptTarget.ES2022,
    module: ts.ModuleKind.NodeNext,
    moduleResolution: ts.ModuleResolutionKind.NodeNext,
    types: ['node'],
    skipLibCheck: true,
  });
  return ts
    .getPreEmitDiagnostics(program)
    .map((d) => ts.flattenDiagnosticMessageText(d.messageText, '\n'))
    .filter((message) => !message.includes('allowImportingTsExtensions'));
}

const PREAMBLE = `import type { Collections } from './store.js';
const shop = createClient<Collections>({ baseUrl: 'http://127.0.0.1:3000' });
export async function use() {`;

describe('client types generated from the example store', () => {
  it('type records, list queries, changes and sign-ins by collection', async () => {
    const found = await diagnostics(`${PREAMBLE}
      const user = await shop.collection('users').create({ name: 'Ada', email: 'ada@example.com' });
      const email: string = user.email;
      const id: number = user.id;
      await shop.collection('products').update(id, { price: 20, currency: 'EUR' });
      await shop.collection('products').update(id, { stock: null });
      for await (const product of shop.collection('products').list({ filter: { price: { gte: 10 } } })) {
        const name: string = product.name;
        void name;
      }
      const me = await shop.auth().signIn({ email: 'ada@example.com', password: 'correct horse' });
      const role: 'customer' | 'staff' | undefined = shop.auth('users').record?.role;
      void role;
      return email + me.email;
    }`);
    assert.deepEqual(found, []);
  });

  it('refuse what the schemas do not allow', async () => {
    const found = await diagnostics(`${PREAMBLE}
      await shop.collection('users').create({ name: 'Ada' });
      await shop.collection('products').update(1, { currency: 'EURO' });
      await shop.collection('orderz').page();
      await shop.auth().signIn({ email: 'ada@example.com' });
      shop.auth('accountz');
    }`);
    assert.equal(found.length, 5, found.join('\n'));
    assert.match(found.join('\n'), /email/);
    assert.match(found.join('\n'), /"EURO"/);
    assert.match(found.join('\n'), /orderz/);
    assert.match(found.join('\n'), /password/);
    assert.match(found.join('\n'), /accountz/);
  });
});
