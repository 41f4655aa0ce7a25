/**
 * The OpenAPI document alone is enough for a client: on each store, a real server's
 * /openapi.json goes through openapi-typescript, and a small program typed by what it
 * generates (with openapi-fetch) must pass the TypeScript compiler, then run against the
 * server at the address the document names: it creates, lists without a limit and with a
 * `price[gte]` filter, updates through the tunnelled POST form, and deletes.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { fileURLToPath, pathToFileURL } from 'node:url';
import type { FastifyInstance } from 'fastify';
import openapiTS, { astToString } from 'openapi-typescript';
import ts from 'typescript';
import { defaultConfig } from '../src/config/index.js';
import { buildApp } from '../src/http/app.js';
import { STORE_KINDS, type TestDatabase } from './helpers/stores.js';
import { strictProgram } from './helpers/strict-program.js';

const NODE_MODULES = fileURLToPath(new URL('../node_modules', import.meta.url));

/**
 * The program a client author would write, typed only by the generated `paths`. The
 * `@ts-expect-error` lines prove the types refuse what the server refuses: a tunnelled
 * form without its header, a method it cannot carry, an operator no filter has.
 */
const PROGRAM = `import createClient from 'openapi-fetch';
import type { components, paths } from './api.js';

type Product = components['schemas']['Product'];

export async function run(baseUrl: string) {
  const client = createClient<paths>({ baseUrl });
  const created = await client.POST('/product/', { body: { name: 'Teapot', sku: 'TEA-1', price: 19.5 } });
  const cheap = await client.POST('/product/', { body: { name: 'Cup', sku: 'CUP-1', price: 4 } });
  const teapot = created.data as Product;
  const id = teapot.id;
  const all = await client.GET('/products/');
  const dear = await client.GET('/products/', { params: { query: { price: { gte: 10 }, sku: 'TEA-1' } } });
  const updated = await client.POST('/product/{id}/', {
    params: { path: { id }, header: { 'HTTP-X-HTTP-METHOD': 'PATCH' } },
    body: { price: 21 },
  });
  const price: unknown = updated.data?.price;
  const removed = await client.DELETE('/product/{id}/', { params: { path: { id } } });
  const gone = await client.GET('/product/{id}/', { params: { path: { id } } });
  if (false as boolean) {
    // @ts-expect-error the tunnelled form requires its header
    await client.POST('/product/{id}/', { params: { path: { id } } });
    // @ts-expect-error POST is not a method the record's path takes
    await client.POST('/product/{id}/', { params: { path: { id }, header: { 'HTTP-X-HTTP-METHOD': 'POST' } } });
    // @ts-expect-error no filter has an operator "near"
    await client.GET('/products/', { params: { query: { price: { near: 1 } } } });
  }
  return {
    created: created.response.status,
    cheap: cheap.response.status,
    all: all.data?.map((record) => record.id) ?? [],
    dear: dear.data?.map((record) => record.id) ?? [],
    teapot: teapot.id,
    updated: updated.response.status,
    noStore: updated.response.headers.get('cache-control'),
    price,
    removed: removed.response.status,
    gone: gone.response.status,
    goneType: gone.error?.type,
  };
}
`;

/** What the TypeScript compiler says of the program beside the generated types in `dir`. */
function diagnostics(dir: string): string[] {
  const program = strictProgram([join(dir, 'program.ts')], {
    noUncheckedIndexedAccess: true,
    lib: ['lib.es2023.d.ts', 'lib.dom.d.ts'],
    types: [],
  });
  return ts
    .getPreEmitDiagnostics(program)
    .map((d) => `${d.file?.fileName ?? ''}: ${ts.flattenDiagnosticMessageText(d.messageText, '\n')}`);
}

for (const kind of STORE_KINDS) {
  describe(`a client generated from the OpenAPI document alone (${kind.name})`, () => {
    let db: TestDatabase;
    let app: FastifyInstance;
    let address: string;
    let dir: string;
    before(async () => {
      db = await kind.create();
      app = await buildApp({ config: defaultConfig({ databaseUrl: db.url, maxEventLoopDelay: 0 }), logStream: false });
      address = await app.listen({ port: 0, host: '127.0.0.1' });
      dir = mkdtempSync(join(tmpdir(), 'restock-generated-client-'));
      // The program imports openapi-fetch as its author would: from a node_modules beside it.
      symlinkSync(NODE_MODULES, join(dir, 'node_modules'), 'dir');
      writeFileSync(join(dir, 'package.json'), '{"type": "module"}\n');
    });
    after(async () => {
      await app?.close();
      await db?.drop();
      if (dir) rmSync(dir, { recursive: true, force: true });
    });

    it('types a program that the compiler accepts, and that works against the server', async () => {
      const response = await fetch(`${address}/openapi.json`);
      assert.equal(response.status, 200);
      const document = (await response.json()) as { servers: { url: string }[] };
      // The server the document names is the one that served it.
      assert.equal(document.servers[0]?.url, address);

      writeFileSync(join(dir, 'api.ts'), astToString(await openapiTS(document as never)));
      writeFileSync(join(dir, 'program.ts'), PROGRAM);
      assert.deepEqual(diagnostics(dir), []);

      const { run } = (await import(pathToFileURL(join(dir, 'program.ts')).href)) as {
        run: (baseUrl: string) => Promise<Record<string, unknown>>;
      };
      const outcome = await run(document.servers[0]?.url ?? '');
      const teapot = outcome.teapot as number;
      assert.deepEqual(
        { ...outcome, all: (outcome.all as number[]).length },
        {
          created: 201,
          cheap: 201,
          all: 2,
          dear: [teapot],
          teapot,
          updated: 200,
          noStore: 'no-store',
          price: 21,
          removed: 200,
          gone: 404,
          goneType: '/problems/not-found',
        },
      );
    });
  });
}
