/**
 * Values of indexed and unique fields stay within MAX_INDEXED_VALUE_BYTES, on both stores
 * alike: PostgreSQL's B-tree refuses an entry past about 2.7 KB (a `500` before), where
 * SQLite stores any. Every way in is refused with a `413` naming the field, and a field
 * indexed over values already too large stops the start, naming the records.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { defaultConfig } from '../src/config/index.js';
import { buildApp } from '../src/http/app.js';
import { body, JSON_HEADERS, problem, useApp } from './helpers/app.js';
import { cli } from './helpers/cli.js';
import { STORE_KINDS } from './helpers/stores.js';

/** An address of `bytes` bytes: past the default cap of 2,000, and PostgreSQL's 2,704. */
const longEmail = (bytes: number) => `${'a'.repeat(bytes - '@example.com'.length)}@example.com`;

/** A folder declaring notes, whose `body` is indexed or not. */
function notesSchema(indexed: boolean): string {
  const dir = mkdtempSync(join(tmpdir(), 'restock-notes-'));
  const schema = { type: 'object', 'x-singular': 'note', ...(indexed && { 'x-index': ['body'] }) };
  writeFileSync(join(dir, 'notes.schema.json'), JSON.stringify(schema));
  return dir;
}

for (const kind of STORE_KINDS) {
  describe(`values of indexed fields stay within MAX_INDEXED_VALUE_BYTES (${kind.name})`, () => {
    const ctx = useApp(kind, { rateLimitMax: 0 });
    const all = async () => (await ctx.app.inject({ url: '/users/?limit=1000' })).body;
    const refused = (response: Parameters<typeof problem>[0], pointer: string) => {
      const found = problem(response, 413, 'indexed-value-too-large');
      assert.equal(found.errors?.[0]?.pointer, pointer);
      assert.match(found.errors?.[0]?.message ?? '', /is 3000 bytes, more than an indexed field holds \(2000/);
    };

    it('refuses a create, a bulk create and a change with 413 naming the field, writing nothing', async () => {
      const made = await ctx.app.inject({ method: 'POST', url: '/user/', payload: { email: longEmail(2000) } });
      assert.equal(made.statusCode, 201, 'exactly at the cap');
      const before = await all();
      const send = (method: string, url: string, payload: unknown) =>
        ctx.app.inject({ method, url, headers: JSON_HEADERS, payload: JSON.stringify(payload) });
      refused(await send('POST', '/user/', { email: longEmail(3000) }), '/email');
      refused(await send('POST', '/user/', [{ email: 'a@example.com' }, { email: longEmail(3000) }]), '/1/email');
      refused(await send('PUT', `/user/${body(made).id}/`, { email: longEmail(3000) }), '/email');
      assert.equal(await all(), before, 'nothing changed');
    });

    it('stops an import at the line', async () => {
      const before = await all();
      const lines = `{"email":"b@example.com"}\n${JSON.stringify({ email: longEmail(3000) })}\n`;
      const result = await cli(ctx.db.url, ['import', '-', '-c', 'users'], lines);
      assert.equal(result.code, 1);
      assert.match(result.stderr, /line 2: \/email: is 3000 bytes, more than an indexed field holds/);
      assert.equal(await all(), before);
    });

    it('refuses to start indexing a field that already holds a longer value, naming the record', async () => {
      const db = await kind.create();
      try {
        const config = (indexed: boolean) =>
          defaultConfig({ databaseUrl: db.url, schemas: notesSchema(indexed), maxEventLoopDelay: 0 });
        const plain = await buildApp({ config: config(false), logStream: false });
        const note = await plain.inject({ method: 'POST', url: '/note/', payload: { body: 'n'.repeat(3000) } });
        assert.equal(note.statusCode, 201);
        await plain.close();
        await assert.rejects(buildApp({ config: config(true), logStream: false }), (error: Error) =>
          /^cannot index notes\.body: record 1 holds a value over 2000 bytes/.test(error.message),
        );
      } finally {
        await db.drop();
      }
    });
  });
}
