/**
 * `restock backup` (process): a copy of the SQLite database taken while a server writes to
 * it is one moment's state, whole, that restock opens and serves; on PostgreSQL the command
 * names the tools to use instead.
 */
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { openStore } from '../src/store/open-store.js';
import { catalogOf } from './helpers/catalog.js';
import { runCommand, startServer } from './helpers/server.js';
import { STORE_KINDS } from './helpers/stores.js';

const sqlite = STORE_KINDS.find((kind) => kind.name === 'sqlite');

describe('restock backup', () => {
  it('copies a SQLite database while a server writes to it: a whole moment, served as it is', async () => {
    const db = await (sqlite as NonNullable<typeof sqlite>).create();
    // No request budget: the writer creates as fast as it can for as long as the copy takes.
    const server = await startServer({ DATABASE_URL: db.url, RATE_LIMIT_MAX: '0' });
    const copy = join(mkdtempSync(join(tmpdir(), 'restock-backup-')), 'copy.db');
    try {
      const create = async (n: number) => {
        const response = await fetch(`${server.url}/product/`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ name: `p${n}`, n }),
        });
        assert.equal(response.status, 201);
      };
      for (let n = 1; n <= 200; n++) await create(n);
      // One create after another, while the copy is taken: the copy holds a prefix of them.
      let writing = true;
      let n = 200;
      const writer = (async () => {
        while (writing) await create(++n);
      })();
      const result = await runCommand(['backup', copy], { DATABASE_URL: db.url });
      writing = false;
      await writer;
      assert.equal(result.code, 0, result.stderr);
      assert.match(result.stdout, /^backed up sqlite:.* to .*copy\.db \(\d+ bytes\) in \d+\.\d s\n$/);
      // It holds the signing keys and password hashes the database does: only its owner reads it.
      assert.equal(statSync(copy).mode & 0o777, 0o600);

      const store = await openStore(`sqlite:${copy}`, catalogOf(['users', 'products']));
      try {
        const records = await store.collection('products').list({ where: [], sort: [], limit: 1_000_000 });
        const numbers = records.map((r) => (JSON.parse(r.data) as { n: number }).n);
        assert.ok(numbers.length >= 200 && numbers.length <= n, `${numbers.length} of ${n}`);
        assert.deepEqual(
          numbers,
          numbers.map((_, i) => i + 1),
          'a prefix of the creates, none missing in between',
        );
        const search = await store.collection('products').list({ where: [], search: 'p17', sort: [], limit: 100 });
        assert.ok(search.length >= 1, 'its search index came along');
      } finally {
        await store.close();
      }
      const refused = await runCommand(['backup', copy], { DATABASE_URL: db.url });
      assert.equal(refused.code, 1);
      assert.match(refused.stderr, /copy\.db exists; backup writes a new file and overwrites none/);
    } finally {
      assert.equal(await server.stop(), 0);
      await db.drop();
    }
  });

  it('refuses, in one line and writing nothing, a copy into a missing folder or of a missing database', async () => {
    const db = await (sqlite as NonNullable<typeof sqlite>).create();
    const dir = mkdtempSync(join(tmpdir(), 'restock-backup-'));
    try {
      assert.equal((await runCommand(['migrate'], { DATABASE_URL: db.url })).code, 0);
      const into = join(dir, 'no-such-folder', 'copy.db');
      const refused = await runCommand(['backup', into], { DATABASE_URL: db.url });
      assert.deepEqual(refused, {
        code: 1,
        stdout: '',
        stderr: `restock: the folder ${join(dir, 'no-such-folder')} does not exist; create it first (backup makes no folders)\n`,
      });
      assert.equal(existsSync(join(dir, 'no-such-folder')), false, 'no folder made');
      const missing = join(dir, 'none.db');
      const nothing = await runCommand(['backup', join(dir, 'copy.db')], { DATABASE_URL: `sqlite:${missing}` });
      assert.equal(nothing.code, 1);
      assert.equal(nothing.stderr, `restock: there is no database at ${missing} to back up (DATABASE_URL)\n`);
      assert.equal(existsSync(missing) || existsSync(join(dir, 'copy.db')), false, 'nothing made');
    } finally {
      rmSync(dir, { recursive: true, force: true });
      await db.drop();
    }
  });

  for (const kind of STORE_KINDS.filter((k) => k.name === 'postgres')) {
    it('names PostgreSQL’s own tools for a PostgreSQL database', async () => {
      const db = await kind.create();
      try {
        const result = await runCommand(['backup', join(tmpdir(), 'never.db')], { DATABASE_URL: db.url });
        assert.equal(result.code, 1);
        assert.match(result.stderr, /For PostgreSQL use its own tools: pg_dump/);
      } finally {
        await db.drop();
      }
    });
  }
});
