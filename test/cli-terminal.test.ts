/**
 * What the command line tells a person: the line a start prints on a terminal (and only
 * there: elsewhere every line stays JSON), export's progress bar, what migrate did on each
 * store, and --version without the app. A terminal is a real pseudo-terminal: util-linux
 * `script` runs the command on one, as a person's shell would.
 */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { migrationReport } from '../src/commands/migrate.js';
import { browsableOrigin, databaseLabel } from '../src/commands/start-banner.js';
import { VERSION } from '../src/core/version.js';
import { openStore } from '../src/store/open-store.js';
import { catalogOf } from './helpers/catalog.js';
import { cli } from './helpers/cli.js';
import { type RunningServer, SERVER_ENTRY, startServer, waitForWorkers } from './helpers/server.js';
import { STORE_KINDS, sqliteKind, type TestDatabase } from './helpers/stores.js';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const run = promisify(execFile);

/** `args` of the server run on a pseudo-terminal, as `script -qec` takes one command line. */
const onTerminal = (args: string[]) => ['-qec', [process.execPath, SERVER_ENTRY, ...args].join(' '), '/dev/null'];

/** Resolves with the first line `server` printed (so far or from now) that matches `pattern`. */
async function lineMatching(server: RunningServer, pattern: RegExp): Promise<RegExpExecArray> {
  const stdout = server.process.stdout;
  for (;;) {
    for (const line of server.output) {
      const match = pattern.exec(line.replace(/\r$/, ''));
      if (match) return match;
    }
    if (!stdout || server.process.exitCode !== null) throw new Error(`no line matches ${pattern}`);
    // startServer's own listener, registered first, has taken the chunk's lines by now.
    await Promise.race([once(stdout, 'data'), once(server.process, 'exit')]);
  }
}

const BANNER =
  /^restock (\S+) serving (http:\/\/127\.0\.0\.1:\d+) on SQLite (\S+) — in a browser, (\S+) is the console and (\S+) the reference$/;

describe('the start', () => {
  let dir: string;
  before(() => {
    dir = mkdtempSync(join(tmpdir(), 'restock-terminal-'));
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  it('prints on a terminal one line with the addresses of the API, the console and the reference page', async () => {
    const database = join(dir, 'banner.db');
    const server = await startServer({ DATABASE_URL: `sqlite:${database}` }, onTerminal([]), { command: 'script' });
    try {
      const [, version, origin, path, console, reference] = await lineMatching(server, BANNER);
      assert.equal(version, VERSION);
      assert.equal(origin, server.url);
      assert.equal(path, database);
      assert.equal(console, `${origin}/`);
      assert.equal(reference, `${origin}/docs/`);
      for (const page of [console, reference]) {
        const response = await fetch(page ?? '', { headers: { accept: 'text/html' } });
        assert.equal(response.status, 200, page);
        assert.match(response.headers.get('content-type') ?? '', /^text\/html/, page);
        assert.match(await response.text(), page === console ? /restock console/i : /restock API reference/, page);
      }
    } finally {
      await server.stop();
    }
  });

  it('prints that line once for all workers, from the primary', async () => {
    const server = await startServer(
      { DATABASE_URL: `sqlite:${join(dir, 'workers.db')}` },
      onTerminal(['--workers', '2']),
      { command: 'script' },
    );
    try {
      await waitForWorkers(server, 2);
      await lineMatching(server, BANNER);
      assert.equal(server.output.filter((line) => BANNER.test(line.replace(/\r$/, ''))).length, 1);
    } finally {
      await server.stop();
    }
  });

  it('writes only JSON lines where no terminal reads them', async () => {
    const server = await startServer({ DATABASE_URL: `sqlite:${join(dir, 'plain.db')}` });
    assert.equal((await fetch(`${server.url}/healthz`)).status, 200);
    const closed = once(server.process, 'close');
    assert.equal(await server.stop(), 0);
    await closed;
    const lines = server.output.filter((line) => line !== '');
    assert.ok(lines.length >= 2, lines.join('\n'));
    for (const line of lines) assert.doesNotThrow(() => JSON.parse(line), line);
    assert.ok(lines.some((line) => JSON.parse(line).msg === `Server listening at ${server.url}`));
  });

  it('names the address a browser can open, and the database without its password', () => {
    assert.equal(browsableOrigin('0.0.0.0', 3000), 'http://localhost:3000');
    assert.equal(browsableOrigin('::', 3000), 'http://localhost:3000');
    assert.equal(browsableOrigin('::1', 8080), 'http://[::1]:8080');
    assert.equal(databaseLabel('sqlite:./data/restock.db'), 'SQLite ./data/restock.db');
    assert.equal(databaseLabel('sqlite::memory:'), 'SQLite in memory, gone at exit');
    assert.equal(databaseLabel('postgres://shop:secret@db:5432/shop'), 'PostgreSQL postgres://shop:***@db:5432/shop');
  });
});

describe('restock export on a terminal', () => {
  let db: TestDatabase;
  let dir: string;
  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'restock-export-bar-'));
    db = await sqliteKind.create();
    const store = await openStore(db.url, catalogOf(['users', 'products']));
    await store.collection('users').createMany(Array.from({ length: 2500 }, (_, i) => JSON.stringify({ i })));
    await store.close();
  });
  after(async () => {
    await db.drop();
    rmSync(dir, { recursive: true, force: true });
  });
  const onPty = (args: string[]) =>
    run('script', onTerminal(args), { cwd: ROOT, env: { ...process.env, DATABASE_URL: db.url } });

  it('draws a progress bar while it writes to a file, then its line', async () => {
    const file = join(dir, 'users.ndjson');
    const { stdout } = await onPty(['export', '-c', 'users', '-o', file]);
    assert.match(stdout, /exporting users \[[^\]]*\] *100% \| 2500 records/);
    assert.match(stdout, /exported 2500 users to /);
    assert.equal(readFileSync(file, 'utf8').trimEnd().split('\n').length, 2500);
  });

  it('draws none when the records themselves go to the terminal', async () => {
    const { stdout } = await onPty(['export', '-c', 'users']);
    assert.doesNotMatch(stdout, /exporting users/);
    assert.equal(stdout.split('\n').filter((line) => line.startsWith('{"id":')).length, 2500);
  });

  it('writes nothing but its line to a standard error that is no terminal', async () => {
    const exported = await cli(db.url, ['export', '-c', 'users']);
    assert.equal(exported.stderr, 'exported 2500 users\n');
    assert.equal(exported.stdout.trimEnd().split('\n').length, 2500);
  });
});

for (const kind of STORE_KINDS) {
  describe(`restock migrate says what it did (${kind.name})`, () => {
    let db: TestDatabase;
    before(async () => {
      db = await kind.create();
    });
    after(() => db.drop());

    it('created the database, then found it up to date, then made the tables of a new collection', async () => {
      const created = await cli(db.url, ['migrate']);
      const made =
        /^created the (\w+) database at (\S+): (\d+) migrations applied, 2 collections \(users, products\)\n$/.exec(
          created.stdout,
        );
      assert.ok(made, created.stdout);
      const [, dialect, , count] = made;
      const again = await cli(db.url, ['migrate']);
      assert.match(
        again.stdout,
        new RegExp(`^the ${dialect} database at \\S+ was already up to date \\(migration \\d+\\)\n$`),
      );
      const latest = Number(/migration (\d+)/.exec(again.stdout)?.[1]);
      assert.ok(latest >= Number(count), 'the last migration is numbered at least as many as were applied');
      const shop = await cli(db.url, ['migrate'], '', { SCHEMAS: 'schemas/shop' });
      assert.match(
        shop.stdout,
        new RegExp(`was already up to date \\(migration ${latest}\\); made the tables of orders\n$`),
      );
      assert.match(
        (await cli(db.url, ['migrate'], '', { SCHEMAS: 'schemas/shop' })).stdout,
        /up to date \(migration \d+\)\n$/,
      );
    });
  });
}

describe('what migrate prints', () => {
  it('says which migrations it applied to a database that had some', () => {
    const database = 'the sqlite database at sqlite:x.db';
    assert.equal(
      migrationReport({ before: [1, 2, 3, 4, 5], applied: [6, 7, 8], added: [] }, database),
      'migrated the sqlite database at sqlite:x.db from migration 5 to 8 (3 migrations applied)',
    );
    assert.equal(
      migrationReport({ before: [1, 2, 3, 4], applied: [5], added: undefined }, database),
      'migrated the sqlite database at sqlite:x.db from migration 4 to 5 (1 migration applied)',
    );
  });
});

describe('restock --version', () => {
  it('answers from the package alone, as the bin runs it', async () => {
    for (const flag of ['--version', '-v', 'version']) {
      const { stdout } = await run(process.execPath, ['bin/restock.mjs', flag], { cwd: ROOT });
      assert.equal(stdout, `restock ${VERSION}\n`, flag);
    }
  });
});
