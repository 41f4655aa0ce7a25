/**
 * Two more generators read the OpenAPI document alone: @hey-api/openapi-ts and orval (its
 * fetch client) each generate a client from a live server's /openapi.json, on each store; a
 * program written against what they generate must pass the TypeScript compiler (a single
 * create typed as one record, the tunnelled form requiring its header), then create, list
 * with a filter, update through the tunnelled POST and delete against the server.
 *
 * Both generators need Node.js 22.18 or later and take seconds each, so the suite runs on
 * one line of CI's four, Node.js 24, and skips on the others (it is in no shard of
 * scripts/test-files.mjs, so every line reaches it); ./generated-client.test.ts covers
 * openapi-typescript, on the one line its shard gives it in CI and on any Node run alone.
 */
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { fileURLToPath, pathToFileURL } from 'node:url';
import type { FastifyInstance } from 'fastify';
import ts from 'typescript';
import { defaultConfig } from '../src/config/index.js';
import { buildApp } from '../src/http/app.js';
import { STORE_KINDS, type TestDatabase } from './helpers/stores.js';
import { strictProgram } from './helpers/strict-program.js';

const NODE_MODULES = fileURLToPath(new URL('../node_modules', import.meta.url));
const ON_NODE_24 = process.versions.node.split('.')[0] === '24';
const SKIP = ON_NODE_24 ? false : 'hey-api and orval run once per CI run: on Node.js 24 only';

/** What each program reports, compared across generators. */
const EXPECTED = { created: 201, updated: 200, price: 21, noStore: 'no-store', removed: 200, gone: 404 };

/** Against @hey-api/openapi-ts's fetch client and SDK (in ./hey). */
const HEY_PROGRAM = `import { createClient, createConfig } from './hey/client/index.js';
import { createProduct, deleteProduct, listProducts, readProduct, tunnelProduct } from './hey/sdk.gen.js';
import type { Product } from './hey/types.gen.js';

export async function run(baseUrl: string) {
  const client = createClient(createConfig({ baseUrl }));
  const created = await createProduct({ client, body: { name: 'Teapot', sku: 'TEA-1', price: 19.5 } });
  await createProduct({ client, body: { name: 'Cup', sku: 'CUP-1', price: 4 } });
  // A single create answers one record, never an array: this assignment compiles only so.
  const teapot: Product = created.data as NonNullable<typeof created.data>;
  const dear = await listProducts({ client, query: { price: { gte: 10 } } });
  const headers = { 'HTTP-X-HTTP-METHOD': 'PATCH' } as const;
  const updated = await tunnelProduct({ client, path: { id: teapot.id }, headers, body: { price: 21 } });
  if (false as boolean) {
    // @ts-expect-error the tunnelled form requires its header
    await tunnelProduct({ client, path: { id: teapot.id }, body: { price: 21 } });
  }
  const removed = await deleteProduct({ client, path: { id: teapot.id } });
  const gone = await readProduct({ client, path: { id: teapot.id } });
  return {
    created: created.response.status,
    dear: (dear.data ?? []).map((record) => record.id),
    teapot: teapot.id,
    updated: updated.response.status,
    price: (updated.data as Product | undefined)?.price,
    noStore: updated.response.headers.get('cache-control'),
    removed: removed.response.status,
    gone: gone.response.status,
  };
}
`;

/** Against orval's fetch client (./orval.ts), generated with header parameters on. */
const ORVAL_PROGRAM = `import { createProduct, deleteProduct, listProducts, readProduct, tunnelProduct } from './orval.js';
import type { Product } from './orval.js';

export async function run() {
  const created = await createProduct({ name: 'Teapot', sku: 'TEA-2', price: 19.5 });
  await createProduct({ name: 'Cup', sku: 'CUP-2', price: 4 });
  if (created.status !== 201) throw new Error(\`create answered \${created.status}\`);
  // A single create answers one record, never an array: this assignment compiles only so.
  const teapot: Product = created.data;
  // orval's fetch client writes no deepObject query, so the filter is the plain (equality) form.
  const dear = await listProducts(undefined, { sku: 'TEA-2' });
  const updated = await tunnelProduct(teapot.id, { 'HTTP-X-HTTP-METHOD': 'PATCH' }, { price: 21 });
  if (false as boolean) {
    // @ts-expect-error the tunnelled form requires its header
    await tunnelProduct(teapot.id, {}, { price: 21 });
  }
  const removed = await deleteProduct(teapot.id);
  const gone = await readProduct(teapot.id);
  return {
    created: created.status,
    dear: dear.status === 200 ? dear.data.map((record) => record.id) : [],
    teapot: teapot.id,
    updated: updated.status,
    price: updated.status === 200 ? (updated.data as Product).price : undefined,
    noStore: updated.headers.get('cache-control'),
    removed: removed.status,
    gone: gone.status,
  };
}
`;

/** What the TypeScript compiler says of the program `file` beside the generated code. */
function diagnostics(file: string): string[] {
  const program = strictProgram([file], {
    lib: ['lib.es2023.d.ts', 'lib.dom.d.ts', 'lib.dom.iterable.d.ts'],
    types: [],
  });
  return ts
    .getPreEmitDiagnostics(program)
    .map((d) => `${d.file?.fileName ?? ''}: ${ts.flattenDiagnosticMessageText(d.messageText, '\n')}`);
}

/** Type-checks and runs the program `file`, and checks what it did against the server. */
async function checkProgram(file: string, source: string, baseUrl: string, dearFilter: 'gte' | 'equal') {
  writeFileSync(file, source);
  assert.deepEqual(diagnostics(file), []);
  const { run } = (await import(pathToFileURL(file).href)) as {
    run: (baseUrl: string) => Promise<Record<string, unknown>>;
  };
  const { dear, teapot, ...outcome } = await run(baseUrl);
  assert.equal(typeof teapot, 'number', `${dearFilter}: the created id`);
  assert.deepEqual(dear, [teapot], `the ${dearFilter} filter finds the teapot alone`);
  assert.deepEqual(outcome, EXPECTED);
}

for (const kind of STORE_KINDS) {
  describe(`clients generated by hey-api and orval from the document alone (${kind.name})`, { skip: SKIP }, () => {
    let db: TestDatabase;
    let app: FastifyInstance;
    let address: string;
    let dir: string;
    let document: string;
    before(async () => {
      db = await kind.create();
      app = await buildApp({ config: defaultConfig({ databaseUrl: db.url, maxEventLoopDelay: 0 }), logStream: false });
      address = await app.listen({ port: 0, host: '127.0.0.1' });
      dir = mkdtempSync(join(tmpdir(), 'restock-generated-sdks-'));
      // The generated code imports what it needs as its author's would: from a node_modules beside it.
      symlinkSync(NODE_MODULES, join(dir, 'node_modules'), 'dir');
      writeFileSync(join(dir, 'package.json'), '{"type": "module"}\n');
      const response = await fetch(`${address}/openapi.json`);
      assert.equal(response.status, 200);
      document = join(dir, 'openapi.json');
      writeFileSync(document, await response.text());
    });
    after(async () => {
      await app?.close();
      await db?.drop();
      if (dir) rmSync(dir, { recursive: true, force: true });
    });

    it('hey-api: a typed SDK that creates, filters, tunnels an update and deletes', async () => {
      const { createClient } = await import('@hey-api/openapi-ts');
      await createClient({
        input: document,
        output: { path: join(dir, 'hey') },
        plugins: ['@hey-api/client-fetch', '@hey-api/typescript', '@hey-api/sdk'],
        logs: { level: 'silent' },
      });
      await checkProgram(join(dir, 'hey-program.ts'), HEY_PROGRAM, address, 'gte');
    });

    it('orval: with header parameters on, the tunnelled call sends its override header', async () => {
      const { generate } = await import('orval');
      mkdirSync(join(dir, 'orval-work'));
      // orval leaves out every header parameter unless `headers` is on: the tunnel's would then be dropped (405).
      await generate(
        {
          input: { target: document },
          output: { target: join(dir, 'orval.ts'), client: 'fetch', mode: 'single', headers: true, baseUrl: address },
        },
        join(dir, 'orval-work'),
      );
      await checkProgram(join(dir, 'orval-program.ts'), ORVAL_PROGRAM, address, 'equal');
    });
  });
}
