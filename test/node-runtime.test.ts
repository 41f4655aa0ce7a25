/**
 * What restock needs of the Node.js it runs on: the versions it takes and refuses, the
 * better-sqlite3 build each loads, and the runtime features it picks per version. CI runs
 * this file, like every other, on each supported Node.js.
 */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { describe, it } from 'node:test';
import { promisify } from 'node:util';
import fc from 'fast-check';
import { unsupportedNodeMessage } from '../scripts/check-node.mjs';
import { isExactInteger } from '../src/core/exact-integer.js';
import { hasSourceTextAccess, inexactBySourceText, inexactIntegers } from '../src/core/inexact-integers.js';
import { scanInexactIntegers } from '../src/core/inexact-integers-node20.js';
import { sqliteLibraryName } from '../src/store/sqlite/sqlite-library.js';
import { startServer } from './helpers/server.js';
import { sqliteKind } from './helpers/stores.js';

const require = createRequire(import.meta.url);
const nodeMajor = Number(process.versions.node.split('.')[0]);
const engines = (
  JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { engines: { node: string } }
).engines.node;

describe('supported Node.js versions', () => {
  it('takes the LTS lines package.json names and refuses others in one line naming both', () => {
    for (const version of ['v20.19.0', 'v20.20.2', 'v22.12.0', 'v22.23.3', 'v24.0.0', 'v24.21.0', 'v26.10.0']) {
      assert.equal(unsupportedNodeMessage(version), undefined, version);
    }
    for (const version of ['v18.20.4', 'v20.18.3', 'v21.7.3', 'v22.11.0', 'v23.11.1', 'v25.2.0', 'v27.0.0']) {
      const message = unsupportedNodeMessage(version);
      assert.ok(message, version);
      assert.doesNotMatch(message, /\n/, 'one line');
      assert.ok(message.includes(version), `${message} names the version found`);
      assert.match(message, /use Node\.js 20 \(20\.19\.0 or later\), 22 \(22\.12\.0 or later\), 24, 26/);
      assert.ok(message.includes(engines), 'and the range package.json states');
    }
  });

  it('runs on this Node.js, which npm start and the restock bin check first', async () => {
    assert.equal(unsupportedNodeMessage(process.version), undefined, `${process.version} is supported`);
    const pkg = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as {
      scripts: Record<string, string>;
    };
    assert.match(pkg.scripts.prestart ?? '', /^node scripts\/check-node\.mjs && /);
    const bin = readFileSync(new URL('../bin/restock.mjs', import.meta.url), 'utf8');
    assert.ok(bin.indexOf("'../scripts/check-node.mjs'") < bin.indexOf("'../scripts/build-if-stale.mjs'"));
    const { stdout, stderr } = await promisify(execFile)(process.execPath, ['scripts/check-node.mjs']);
    assert.equal(stdout + stderr, '', 'a supported Node passes in silence');
  });
});

describe('the SQLite library', () => {
  it('is better-sqlite3 12 on Node 20 and 13 from Node 22 on', () => {
    const expected = nodeMajor === 20 ? ['restock-sqlite-node20', '12'] : ['better-sqlite3', '13'];
    assert.equal(sqliteLibraryName, expected[0]);
    const binding = createRequire(require.resolve(sqliteLibraryName));
    const { version } = binding('better-sqlite3/package.json') as { version: string };
    assert.equal(version.split('.')[0], expected[1], `${sqliteLibraryName}: better-sqlite3@${version}`);
  });

  it("is the only binding npm installed: the other line's is skipped, never fetched or compiled", () => {
    const other = nodeMajor === 20 ? 'better-sqlite3' : 'restock-sqlite-node20';
    assert.throws(() => require.resolve(other), { code: 'MODULE_NOT_FOUND' }, `${other} is installed`);
  });

  it('is loaded through sqlite-library.ts alone: anything else would load 13 on Node 20', () => {
    const root = new URL('..', import.meta.url);
    const files = ['src', 'test', 'bench', 'scripts'].flatMap((dir) =>
      readdirSync(new URL(dir, root), { recursive: true, encoding: 'utf8' })
        // Not bench/peers/node_modules, which `npm run bench -- --peers` installs (a package may be a folder named `x.js`).
        .filter((name) => /\.(ts|mts|mjs|js)$/.test(name) && !name.split(/[\\/]/).includes('node_modules'))
        .map((name) => `${dir}/${name}`),
    );
    const valueImports = files.filter(
      (file) =>
        file !== 'src/store/sqlite/sqlite-library.ts' &&
        /^import (?!type )[^;]*from 'better-sqlite3(-node20)?';/m.test(readFileSync(new URL(file, root), 'utf8')),
    );
    assert.deepEqual(valueImports, []);
  });

  it('serves writes and lists in a real server process that lives on (better-sqlite3 12 aborts on Node 24)', async () => {
    const database = await sqliteKind.create();
    const server = await startServer({ DATABASE_URL: database.url });
    try {
      for (let round = 0; round < 3; round++) {
        for (let i = 0; i < 20; i++) {
          const created = await fetch(`${server.url}/user/`, {
            method: 'POST',
            headers: { 'content-type': 'application/json' },
            body: JSON.stringify({ name: `user ${round}.${i}`, round }),
          });
          assert.equal(created.status, 201);
        }
        // Each filter and order is a statement of its own, prepared and then let go.
        for (const query of ['', `?round=${round}`, '?sort=-name', `?name[startsWith]=user%20${round}`, '?q=user']) {
          assert.equal((await fetch(`${server.url}/users/${query}`)).status, 200, query);
        }
        // Idle time, when the collector finalizes what the requests left behind.
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
      assert.equal(server.process.exitCode, null, 'the server still runs');
      assert.equal(await server.stop(), 0);
    } finally {
      await server.stop('SIGKILL');
      await database.drop();
    }
  });
});

describe('integers beyond 2^53 in a body', () => {
  /** A JSON text with integer literals of any size, and the pointers whose literal a double changes. */
  const bodyArb = fc
    .array(
      fc.tuple(
        fc.oneof(fc.constantFrom('a', 'b', 'x/y', 'm~n'), fc.string({ maxLength: 4 })),
        fc.oneof(
          fc.bigInt({ min: -(2n ** 70n), max: 2n ** 70n }),
          fc.constantFrom(2n ** 53n, 2n ** 53n + 1n, 2n ** 64n, 10n ** 20n),
          fc.integer(),
        ),
        fc.boolean(),
      ),
      { maxLength: 8 },
    )
    .map((fields) => {
      const expected = new Set<string>();
      const members = fields.map(([key, value, inArray]) => {
        const escaped = key.replaceAll('~', '~0').replaceAll('/', '~1');
        const literal = String(value);
        const pointer = inArray ? `/${escaped}/1` : `/${escaped}`;
        // A repeated key: the last one counts, as in JSON.parse.
        for (const seen of [...expected])
          if (seen === `/${escaped}` || seen.startsWith(`/${escaped}/`)) expected.delete(seen);
        if (!isExactInteger(literal)) expected.add(pointer);
        return `${JSON.stringify(key)}:${inArray ? `[0,${literal}]` : literal}`;
      });
      return { text: `{${members.join(',')}}`, expected };
    });

  /** The pointers a finder reports whose parsed value is a number beyond 2^53: the ones checkLimits asks about. */
  const asked = (found: Set<string>, text: string) => {
    const value = JSON.parse(text) as Record<string, unknown>;
    return new Set(
      [...found].filter((pointer) => {
        const [key = '', index] = pointer
          .slice(1)
          .split('/')
          .map((t) => t.replaceAll('~1', '/').replaceAll('~0', '~'));
        const node = index === undefined ? value[key] : (value[key] as unknown[])[Number(index)];
        return typeof node === 'number' && !Number.isSafeInteger(node);
      }),
    );
  };

  it('uses JSON.parse source text access where this Node has it (from 21), the scanner on Node 20', () => {
    assert.equal(hasSourceTextAccess, nodeMajor >= 21);
    assert.equal(inexactIntegers, hasSourceTextAccess ? inexactBySourceText : scanInexactIntegers);
  });

  it('finds exactly the literals a double changes, by each finder this Node can run', () => {
    const finders = hasSourceTextAccess ? [inexactBySourceText, scanInexactIntegers] : [scanInexactIntegers];
    fc.assert(
      fc.property(bodyArb, ({ text, expected }) => {
        for (const find of finders) assert.deepEqual(asked(find(text), text), expected, `${find.name}: ${text}`);
      }),
      { numRuns: 500 },
    );
  });
});

describe('dependencies whose engines say Node 22', () => {
  // @fastify/static pulls in content-disposition@3 (for reply.download) and fastify's
  // light-my-request pulls in cookie@2 (for inject); both declare Node >= 22. package.json's
  // overrides keep their previous majors (docs/decisions.md): this proves that the packages
  // using them work with what the install holds, on every Node CI runs.
  it('content-disposition, through @fastify/static, works on this Node', () => {
    const staticRequire = createRequire(require.resolve('@fastify/static'));
    const { create, parse } = staticRequire('content-disposition') as {
      create(name: string): string;
      parse(header: string): { type: string; parameters: Record<string, string> };
    };
    const header = create('naïve file.txt');
    assert.equal(header, `attachment; filename="na?ve file.txt"; filename*=UTF-8''na%C3%AFve%20file.txt`);
    assert.equal(parse(header).parameters.filename, 'naïve file.txt');
  });

  it('cookie, through light-my-request, works on this Node', async () => {
    const inject = createRequire(require.resolve('fastify'))('light-my-request') as typeof import('light-my-request');
    const response = await inject(
      (_req, res) => {
        res.setHeader('set-cookie', 'session=abc; Max-Age=60; HttpOnly');
        res.end('ok');
      },
      { url: '/' },
    );
    assert.deepEqual(
      response.cookies.map(({ name, value, maxAge, httpOnly }) => ({ name, value, maxAge, httpOnly })),
      [{ name: 'session', value: 'abc', maxAge: 60, httpOnly: true }],
    );
  });
});
