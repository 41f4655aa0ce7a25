/**
 * SPEC §9: API keys on every route, by scope and by the effective method (on the wire, or
 * tunnelled in any of the three override headers), also with public reads and with the
 * override allowed on POST only; protected mode; keys that never reach a log line;
 * Idempotency-Key scoped by key; CORS for browser clients.
 *
 * Every suite that serves requests runs once per store kind; the checks of settings and of
 * the protected mode rule read no database and run once.
 */
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import type { FastifyInstance, InjectOptions, LightMyRequestResponse } from 'fastify';
import { ConfigError, loadConfig, parseApiKeys } from '../src/config/index.js';
import { collectionPaths } from '../src/core/collection.js';
import { DEFAULT_COLLECTIONS } from '../src/core/default-collections.js';
import { isLoopbackHost, protectedModeRefusal } from '../src/http/protected-mode.js';
import { body, JSON_HEADERS, problem, type TestContext, useApp } from './helpers/app.js';
import {
  API_KEYS,
  authorization,
  CREDENTIALS,
  type Credential,
  injectAs,
  READ_KEY,
  UNKNOWN_KEY,
  WRITE_KEY,
  withKeys,
} from './helpers/keys.js';
import { runCommand, startServer } from './helpers/server.js';
import { STORE_KINDS } from './helpers/stores.js';

const METHODS = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'] as const;
const TUNNELLED: ReadonlySet<string> = new Set(['GET', 'POST', 'PUT', 'PATCH', 'DELETE']);
const SAFE: ReadonlySet<string> = new Set(['GET', 'HEAD', 'OPTIONS']);
/**
 * The override's three names (SPEC §5), written out here rather than taken from src: access
 * control must see the effective method whichever one a client uses, so each tunnelled case
 * is sent in each.
 */
const OVERRIDE_HEADERS = ['HTTP-X-HTTP-METHOD', 'X-HTTP-Method', 'X-HTTP-Method-Override'] as const;
/**
 * Probes, the index, problem descriptions, the API's description and the console's files:
 * answered to anyone (see SECURITY.md), by the methods they have routes for. Any other
 * method there has no route, and is checked like an unknown path.
 */
const PUBLIC_PATHS: ReadonlyMap<string, 'every method' | 'GET and HEAD'> = new Map([
  ['/', 'every method'],
  ['/healthz', 'every method'],
  ['/readyz', 'every method'],
  ['/problems/not-found', 'every method'],
  ['/openapi.json', 'every method'],
  ['/openapi.yaml', 'every method'],
  ['/docs/', 'GET and HEAD'],
  ['/docs/json', 'GET and HEAD'],
  ['/console/console.js', 'GET and HEAD'],
  ['/console/console.css', 'GET and HEAD'],
] as const);

/**
 * Every kind of path, in lanes: one per collection (its canonical paths and aliases, whose
 * requests read or change that collection only), and one for the service paths and an
 * unknown path, which hold no records.
 */
function matrixLanes(): string[][] {
  const lanes = DEFAULT_COLLECTIONS.map((collection) => {
    const canonical = collectionPaths(collection);
    return [
      canonical.collection,
      canonical.create,
      canonical.item(1),
      `/${collection.plural}/1/`,
      `/${collection.singular}/2`,
    ];
  });
  return [...lanes, [...PUBLIC_PATHS.keys(), '/metrics', '/nowhere/']];
}

/**
 * A configuration the matrix runs under. The settings are given as an operator writes them;
 * what access control must then do is spelled out beside them, not read back from the app.
 */
interface Variant {
  suite: string;
  claim: string;
  env: Record<string, string>;
  publicReads: boolean;
  /** Whether GET may carry an override (METHOD_OVERRIDE includes get). */
  tunnelsThroughGet: boolean;
  /**
   * Whether each tunnelled case is sent in all three header names, or in one of them in
   * turn. The first suite proves every scope decision under every name; the others each
   * change one setting whose effect does not depend on the name that carried the override,
   * so they take the names in turn: each name still reaches every path by every tunnelled
   * method, at a third of the cost (the matrix is thousands of requests per store).
   */
  everyHeader: boolean;
}

const VARIANTS: readonly Variant[] = [
  {
    suite: 'API keys on every route, by effective method',
    claim: 'no key and unknown keys: 401; read keys read; write keys do everything; tunnelled like wire',
    env: {},
    publicReads: false,
    tunnelsThroughGet: true,
    everyHeader: true,
  },
  {
    suite: 'API keys with PUBLIC_READS',
    claim: 'reads need no key but /metrics does, writes still need a write key, and an unknown key is still refused',
    env: { PUBLIC_READS: 'true' },
    publicReads: true,
    tunnelsThroughGet: true,
    everyHeader: false,
  },
  {
    suite: 'API keys with METHOD_OVERRIDE=post',
    claim: 'a GET carrying an override: 400 for every caller; tunnelled through POST, as on the wire',
    env: { METHOD_OVERRIDE: 'post' },
    publicReads: false,
    tunnelsThroughGet: false,
    everyHeader: false,
  },
];

interface Case {
  path: string;
  /** The effective method. */
  method: (typeof METHODS)[number];
  /** The method on the wire: `method` itself, or GET or POST carrying `header`. */
  wire: string;
  header?: (typeof OVERRIDE_HEADERS)[number];
  credential: Credential;
}

/** How a method can reach the server: on the wire and, if it can be tunnelled, through POST and GET. */
function transports(method: Case['method']): { wire: string; tunnelled: boolean }[] {
  const wire = { wire: method, tunnelled: false };
  return TUNNELLED.has(method) ? [wire, { wire: 'POST', tunnelled: true }, { wire: 'GET', tunnelled: true }] : [wire];
}

function* matrix(variant: Variant, paths: readonly string[]): Generator<Case> {
  let turn = 0;
  for (const path of paths) {
    for (const method of METHODS) {
      for (const { wire, tunnelled } of transports(method)) {
        for (const credential of CREDENTIALS) {
          if (!tunnelled) {
            yield { path, method, wire, credential };
            continue;
          }
          // Rotating, the four credentials of one tunnelled request between them use all three names.
          const names = variant.everyHeader
            ? OVERRIDE_HEADERS
            : [OVERRIDE_HEADERS[turn++ % OVERRIDE_HEADERS.length] as (typeof OVERRIDE_HEADERS)[number]];
          for (const header of names) yield { path, method, wire, header, credential };
        }
      }
    }
  }
}

function labelOf(c: Case): string {
  const how = c.header ? `tunnelled through ${c.wire} in ${c.header}` : 'on the wire';
  return `${c.credential} key: ${c.method} ${c.path} (${how})`;
}

function requestOf(c: Case): InjectOptions {
  const headers: Record<string, string> = c.header ? { [c.header]: c.method } : {};
  const withBody = c.method === 'POST' || c.method === 'PUT' || c.method === 'PATCH';
  return {
    method: c.wire as InjectOptions['method'],
    url: c.path,
    headers: withBody ? { ...headers, ...JSON_HEADERS } : headers,
    ...(withBody ? { payload: JSON.stringify({ probe: `${c.method} ${c.path}` }) } : {}),
  };
}

type Outcome = 'through' | 400 | 401 | 403;

/** What must be answered before the route: through to it, 401/403 with a challenge, or 400 for the override. */
function expectedOutcome(c: Case, variant: Variant): Outcome {
  // The override is checked first, so a GET that may not carry one is refused whoever sends
  // it, public path or not: no key is looked at, and nothing runs.
  if (c.header && c.wire === 'GET' && !variant.tunnelsThroughGet) return 400;
  const publicFor = PUBLIC_PATHS.get(c.path);
  if (publicFor === 'every method' || (publicFor && (c.method === 'GET' || c.method === 'HEAD'))) return 'through';
  const safe = SAFE.has(c.method);
  // PUBLIC_READS opens reads, but not of /metrics, which shows the traffic.
  if (c.credential === 'none') return safe && variant.publicReads && c.path !== '/metrics' ? 'through' : 401;
  if (c.credential === 'unknown') return 401;
  if (c.credential === 'read') return safe ? 'through' : 403;
  return 'through';
}

function assertRefused(response: LightMyRequestResponse, status: 400 | 401 | 403, c: Case, label: string) {
  assert.equal(response.statusCode, status, label);
  if (status === 400) {
    problem(response, 400, 'invalid-method-override');
    assert.equal(response.headers['www-authenticate'], undefined, `${label}: no scope decision`);
    return;
  }
  if (c.method !== 'HEAD') problem(response, status, status === 401 ? 'unauthorized' : 'forbidden');
  const challenge = String(response.headers['www-authenticate']);
  assert.match(challenge, /^Bearer realm="restock"/, label);
  if (status === 403) assert.match(challenge, /error="insufficient_scope", scope="write"/, label);
  else if (c.credential === 'unknown') assert.match(challenge, /error="invalid_token"/, label);
  else assert.doesNotMatch(challenge, /error=/, label);
}

/** Both collections without timestamps, to compare two apps that lived through the same requests. */
async function contents(app: FastifyInstance, credential: Credential) {
  const all: unknown[] = [];
  for (const { plural } of DEFAULT_COLLECTIONS) {
    const response = await injectAs(app, credential, { url: `/${plural}/?limit=1000` });
    assert.equal(response.statusCode, 200);
    for (const record of body<Record<string, unknown>[]>(response)) {
      const { createdAt: _c, updatedAt: _u, ...fields } = record;
      all.push({ plural, ...fields });
    }
  }
  return all;
}

/**
 * Sends every case to an app with keys, and each one access control lets through to an
 * identical app without keys that saw the same requests: the statuses must agree, and in
 * the end both hold the same records, so a refused request changed nothing.
 */
async function checkMatrix(guarded: TestContext, open: TestContext, variant: Variant) {
  for (const app of [guarded.app, open.app]) {
    for (const { singular } of DEFAULT_COLLECTIONS) {
      for (const n of [1, 2]) {
        const made = await injectAs(app, 'write', {
          method: 'POST',
          url: `/${singular}/`,
          headers: JSON_HEADERS,
          payload: { n },
        });
        assert.equal(made.statusCode, 201);
      }
    }
  }
  const counts: Record<Outcome, number> = { through: 0, 400: 0, 401: 0, 403: 0 };
  // The lanes run side by side, each in order: no request in one lane can change an answer
  // in another, so both apps still see the same history wherever it matters, and the
  // matrix (thousands of requests per store, mostly waiting on the database) is not held
  // up by one request at a time. For the same reason the two apps get each request at once.
  await Promise.all(
    matrixLanes().map(async (paths) => {
      for (const c of matrix(variant, paths)) {
        const label = labelOf(c);
        const request = requestOf(c);
        const outcome = expectedOutcome(c, variant);
        counts[outcome]++;
        if (outcome !== 'through') {
          assertRefused(await injectAs(guarded.app, c.credential, request), outcome, c, label);
          continue;
        }
        const [response, reference] = await Promise.all([
          injectAs(guarded.app, c.credential, request),
          open.app.inject(request),
        ]);
        assert.equal(response.statusCode, reference.statusCode, `${label}: ${response.body}`);
        assert.equal(response.headers.allow, reference.headers.allow, label);
      }
    }),
  );
  assert.deepEqual(await contents(guarded.app, 'write'), await contents(open.app, 'none'));
  return counts;
}

for (const kind of STORE_KINDS) {
  for (const variant of VARIANTS) {
    describe(`${variant.suite} (${kind.name})`, () => {
      const { publicReads, methodOverride } = loadConfig([], variant.env).config;
      const guarded = useApp(kind, withKeys({ publicReads, methodOverride, rateLimitMax: 0 }));
      const open = useApp(kind, { methodOverride, rateLimitMax: 0 });

      it(variant.claim, async (t) => {
        const counts = await checkMatrix(guarded, open, variant);
        const refused = ([400, 401, 403] as const).map((status) => `${counts[status]} answered ${status}`);
        t.diagnostic(`requests: ${counts.through} let through, ${refused.join(', ')}`);
        assert.ok(counts[401] > 0 && counts[403] > 0 && counts.through > 0);
        assert.equal(counts[400] > 0, !variant.tunnelsThroughGet);
      });
    });
  }

  describe(`Idempotency-Key scoped by API key (${kind.name})`, () => {
    const [alice, bob] = ['ak_0123456789abcdefALICE', 'bk_0123456789abcdefBOB'];
    const ctx = useApp(kind, { apiKeys: parseApiKeys(`alice:write:${alice},bob:write:${bob}`) });
    const createAs = (key: string, payload: object) =>
      ctx.app.inject({
        method: 'POST',
        url: '/user/',
        headers: { ...JSON_HEADERS, authorization: `Bearer ${key}`, 'idempotency-key': 'order-1' },
        payload,
      });

    it("one caller's key never replays or blocks another caller's request", async () => {
      const first = await createAs(alice, { who: 'alice' });
      assert.equal(first.statusCode, 201);
      const other = await createAs(bob, { who: 'bob' });
      assert.equal(other.statusCode, 201, 'another payload under the same key: no 422 across callers');
      assert.notEqual(body(other).id, body(first).id);
      assert.equal(other.headers['idempotent-replayed'], undefined);
      const retry = await createAs(alice, { who: 'alice' });
      assert.equal(retry.headers['idempotent-replayed'], 'true');
      assert.equal(body(retry).id, body(first).id);
    });
  });
}

describe('API key settings', () => {
  it('reads name:scope:key entries from API_KEYS and from a file, with comments and hashed keys', () => {
    const dir = mkdtempSync(join(tmpdir(), 'restock-keys-'));
    try {
      const file = join(dir, 'keys');
      const hashed = createHash('sha256').update('fk_0123456789abcdefHASHED').digest('hex');
      writeFileSync(file, `# restock keys\n\nci:read:fk_0123456789abcdefFILE\r\ndeploy:write:sha256:${hashed}\n`);
      const { config } = loadConfig(['--api-keys-file', file], { API_KEYS });
      // One list: API_KEYS's keys, then the file's.
      assert.deepEqual(
        config.apiKeys.map((k) => [k.name, k.scope, k.hash.length]),
        [
          ['reader', 'read', 32],
          ['writer', 'write', 32],
          ['ci', 'read', 32],
          ['deploy', 'write', 32],
        ],
      );
      assert.equal(config.apiKeys[3]?.hash.toString('hex'), hashed);
      assert.equal(config.apiKeysFile, file);
      assert.throws(
        () => loadConfig([], { API_KEYS_FILE: join(dir, 'missing') }),
        (e: Error) => e instanceof ConfigError && /API_KEYS_FILE: cannot read .*ENOENT/.test(e.message),
      );
      writeFileSync(file, 'writer:read:fk_0123456789abcdefOTHER\n');
      assert.throws(
        () => loadConfig([], { API_KEYS, API_KEYS_FILE: file }),
        (e: Error) =>
          e instanceof ConfigError && /API_KEYS and API_KEYS_FILE: two keys are named "writer"/.test(e.message),
      );
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('keeps only hashes, and refuses bad entries naming the entry but never showing the key', () => {
    const keys = parseApiKeys(API_KEYS);
    assert.equal(JSON.stringify(keys).includes(READ_KEY), false);
    assert.equal(keys[0]?.hash.toString('hex'), createHash('sha256').update(READ_KEY).digest('hex'));
    const secret = 'S3cretS3cretS3cretS3cret';
    for (const [entries, reason] of [
      [`alice:admin:${secret}`, /entry 1 \("alice"\): the scope must be read or write/],
      [`alice:read:${secret},alice:write:${secret}x`, /two keys are named "alice"/],
      [`alice:read:${secret},bob:write:${secret}`, /"alice" and "bob" are the same key/],
      [`bad name:read:${secret}`, /entry 1: a key's name/],
      ['alice:read:S3cret', /at least 16 characters/],
      [`alice:read:${secret} with blanks`, /may hold only/],
    ] as const) {
      assert.throws(
        () => loadConfig([], { API_KEYS: entries }),
        (e: Error) => e instanceof ConfigError && reason.test(e.message) && !e.message.includes('S3cret'),
        entries,
      );
    }
  });

  it('a setting naming a bad key: one line on stderr that does not show it', async () => {
    const { code, stderr } = await runCommand([], { API_KEYS: 'alice:admin:VerySecretValue12345', PORT: '0' });
    assert.equal(code, 1);
    assert.match(stderr, /API_KEYS: entry 1 \("alice"\): the scope must be read or write/);
    assert.equal(stderr.includes('VerySecret'), false);
  });
});

describe('protected mode rules', () => {
  it('knows loopback addresses from the others', () => {
    for (const host of ['127.0.0.1', '127.8.9.10', 'localhost', 'LOCALHOST', '::1', '[::1]', '0:0:0:0:0:0:0:1']) {
      assert.equal(isLoopbackHost(host), true, host);
    }
    for (const host of ['0.0.0.0', '::', '10.0.0.5', '192.168.1.2', 'example.com', '128.0.0.1', '::2']) {
      assert.equal(isLoopbackHost(host), false, host);
    }
  });

  it('refuses a non-loopback address without keys unless told so explicitly', () => {
    assert.match(
      String(protectedModeRefusal({ host: '0.0.0.0', keyCount: 0, insecureNoAuth: false })),
      /API_KEYS.*--insecure-no-auth/,
    );
    assert.equal(protectedModeRefusal({ host: '0.0.0.0', keyCount: 1, insecureNoAuth: false }), undefined);
    assert.equal(protectedModeRefusal({ host: '0.0.0.0', keyCount: 0, insecureNoAuth: true }), undefined);
    assert.equal(protectedModeRefusal({ host: '127.0.0.1', keyCount: 0, insecureNoAuth: false }), undefined);
    assert.equal(loadConfig(['--insecure-no-auth'], {}).config.insecureNoAuth, true);
    assert.equal(loadConfig([], { INSECURE_NO_AUTH: 'true' }).config.insecureNoAuth, true);
    assert.equal(loadConfig([], {}).config.insecureNoAuth, false);
    assert.throws(() => loadConfig([], { INSECURE_NO_AUTH: 'maybe' }), /INSECURE_NO_AUTH must be true or false/);
  });
});

for (const kind of STORE_KINDS) {
  describe(`protected mode in the real process (${kind.name})`, () => {
    it('exits 1 with one line saying why, before it listens', async () => {
      const db = await kind.create();
      try {
        // The refusals at once: each is a process start, the slow part of this test.
        const refusals: Record<string, string>[] = [{ HOST: '0.0.0.0' }, { HOST: '::', WORKERS: '2' }];
        const runs = await Promise.all(
          refusals.map((env) => runCommand([], { ...env, PORT: '0', DATABASE_URL: db.url })),
        );
        for (const [i, { code, stdout, stderr }] of runs.entries()) {
          assert.equal(code, 1, JSON.stringify(refusals[i]));
          assert.equal(stderr.trim().split('\n').length, 1, stderr);
          assert.match(stderr, /^restock: refusing to listen on .* with no API keys.*API_KEYS.*--insecure-no-auth/);
          assert.doesNotMatch(stdout, /Server listening/);
        }
      } finally {
        await db.drop();
      }
    });
  });

  describe(`API keys in the logs (${kind.name})`, () => {
    it('never appear in any log line, as text, hash or base64, at LOG_LEVEL=trace', async () => {
      const dir = mkdtempSync(join(tmpdir(), 'restock-keys-'));
      const db = await kind.create();
      const fileKey = 'fk_0123456789abcdefLOGGED';
      writeFileSync(join(dir, 'keys'), `filed:write:${fileKey}\n`);
      const server = await startServer({
        DATABASE_URL: db.url,
        LOG_LEVEL: 'trace',
        API_KEYS,
        API_KEYS_FILE: join(dir, 'keys'),
      });
      try {
        const statuses: number[] = [];
        const send = async (path: string, init: RequestInit) => {
          const response = await fetch(`${server.url}${path}`, init);
          await response.arrayBuffer();
          statuses.push(response.status);
        };
        const auth = (key: string) => ({ authorization: `Bearer ${key}` });
        await send('/user/', { method: 'POST', headers: { ...JSON_HEADERS, ...auth(WRITE_KEY) }, body: '{"a":1}' });
        await send('/user/1/', { method: 'POST', headers: { ...auth(READ_KEY), 'HTTP-X-HTTP-METHOD': 'DELETE' } });
        await send('/users/', { headers: auth(READ_KEY) });
        await send('/users/', { headers: auth(fileKey) });
        await send('/users/', { headers: auth(UNKNOWN_KEY) });
        await send('/users/', { headers: auth(`${WRITE_KEY}x`) });
        await send('/users/', {
          headers: { authorization: `Basic ${Buffer.from(`u:${WRITE_KEY}`).toString('base64')}` },
        });
        await send('/users/', { headers: { authorization: WRITE_KEY } });
        await send('/user/', { method: 'POST', headers: { ...JSON_HEADERS, ...auth(WRITE_KEY) }, body: '{' });
        assert.deepEqual(statuses, [201, 403, 200, 200, 401, 401, 401, 401, 400]);
      } finally {
        assert.equal(await server.stop(), 0);
        rmSync(dir, { recursive: true, force: true });
        await db.drop();
      }
      const log = server.output.join('\n');
      const completed = server.output.filter((line) => line.includes('"request completed"'));
      assert.equal(completed.length, 9, 'the log has a line for every request');
      for (const key of [READ_KEY, WRITE_KEY, UNKNOWN_KEY, fileKey]) {
        for (const form of [
          key,
          key.slice(4),
          createHash('sha256').update(key).digest('hex'),
          createHash('sha256').update(key).digest('base64'),
          Buffer.from(key).toString('base64').slice(0, 16),
        ]) {
          assert.equal(log.includes(form), false, `the log shows ${form}`);
        }
      }
    });
  });

  describe(`CORS for browser clients (${kind.name})`, () => {
    const ctx = useApp(kind, withKeys({ corsOrigin: 'https://shop.example, https://admin.example' }));

    it('answers preflights without a key, allowing Authorization and the three override headers', async () => {
      const response = await ctx.app.inject({
        method: 'OPTIONS',
        url: '/user/1/',
        headers: {
          origin: 'https://admin.example',
          'access-control-request-method': 'POST',
          'access-control-request-headers': 'authorization, content-type, http-x-http-method, x-http-method-override',
        },
      });
      assert.equal(response.statusCode, 204);
      assert.equal(response.headers['access-control-allow-origin'], 'https://admin.example');
      const allowed = String(response.headers['access-control-allow-headers']).toLowerCase().split(/, */);
      for (const name of ['authorization', 'http-x-http-method', 'x-http-method', 'x-http-method-override']) {
        assert.ok(allowed.includes(name), name);
      }
      assert.match(String(response.headers['access-control-allow-methods']), /DELETE/);
    });

    it('answers every preflight alike, for paths that exist and paths that do not: 204, no Allow', async () => {
      const paths = [...matrixLanes().flat(), '/user/', '/a/b/c', '/users/1/x', '/problems/nothing', '/docs/nothing'];
      // What may differ from one request to the next: its id, the time, the budget left.
      const perRequest = new Set(['x-request-id', 'date', 'ratelimit-remaining', 'ratelimit-reset']);
      for (const origin of ['https://admin.example', 'https://evil.example']) {
        const answers = new Map<string, string[]>();
        for (const path of paths) {
          for (const credential of ['none', 'write'] as const) {
            const response = await injectAs(ctx.app, credential, {
              method: 'OPTIONS',
              url: path,
              headers: { origin, 'access-control-request-method': 'DELETE' },
            });
            const headers = Object.entries(response.headers).filter(([name]) => !perRequest.has(name));
            const answer = JSON.stringify([response.statusCode, response.body, headers.sort()]);
            answers.set(answer, [...(answers.get(answer) ?? []), `${path} (${credential} key)`]);
          }
        }
        assert.equal(answers.size, 1, `${origin}: ${JSON.stringify([...answers], null, 1)}`);
        const [status, payload, headers] = JSON.parse([...answers.keys()][0] as string);
        assert.equal(status, 204);
        assert.equal(payload, '');
        assert.equal(new Map(headers).get('allow'), undefined);
      }
    });

    it('exposes ETag, Link, Location, X-Total-Count and the rate limit headers to configured origins only', async () => {
      const headers = { origin: 'https://shop.example', ...authorization('write') };
      const created = await ctx.app.inject({
        method: 'POST',
        url: '/user/',
        headers: { ...headers, ...JSON_HEADERS },
        payload: {},
      });
      assert.equal(created.statusCode, 201);
      assert.equal(created.headers['access-control-allow-origin'], 'https://shop.example');
      const exposed = String(created.headers['access-control-expose-headers']).toLowerCase().split(/, */);
      for (const name of [
        'etag',
        'link',
        'location',
        'x-total-count',
        'retry-after',
        'www-authenticate',
        'ratelimit-remaining',
      ]) {
        assert.ok(exposed.includes(name), name);
      }
      const stranger = await ctx.app.inject({
        url: '/users/',
        headers: { ...headers, origin: 'https://evil.example' },
      });
      assert.equal(stranger.headers['access-control-allow-origin'], undefined);
    });

    it('lets a browser read a 401, so that it can ask for a key', async () => {
      const response = await ctx.app.inject({ url: '/users/', headers: { origin: 'https://shop.example' } });
      problem(response, 401, 'unauthorized');
      assert.equal(response.headers['access-control-allow-origin'], 'https://shop.example');
    });
  });
}
