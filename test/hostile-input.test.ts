/**
 * Hostile input (SPEC §8, last line), property-based with fast-check: random requests,
 * written byte for byte on real sockets to the real app listening on a loopback port:
 * random methods, paths, query strings, headers (override headers and credentials among
 * them) and bodies (random JSON, truncated JSON, huge numbers, deep nesting, `__proto__` and
 * `constructor` keys, bytes that are not UTF-8). Every one must hold:
 *
 * - no 5xx, except a 503 `overloaded` problem from load shedding;
 * - every error is a problem document whose status matches the response's;
 * - a refused request (4xx) or a read changes nothing: both collections are compared,
 *   versions and timestamps included, before and after;
 * - no prototype is polluted, and the server keeps answering.
 *
 * Then random list queries aimed at the stores' SQL (field names with backslashes and
 * U+0000, values with U+0000, lone surrogates and numbers beyond every integer type), each
 * sent to every store holding the same records: no 5xx, and the same answer from each.
 *
 * FUZZ_RUNS sets the number of requests per store (default 500); FUZZ_SEED replays a run
 * (fast-check prints the seed of a failing one).
 */
import assert from 'node:assert/strict';
import type { AddressInfo } from 'node:net';
import { before, describe, it } from 'node:test';
import fc from 'fast-check';
import type { LightMyRequestResponse } from 'fastify';
import { defaultConfig } from '../src/config/index.js';
import { DEFAULT_COLLECTIONS } from '../src/core/default-collections.js';
import { buildApp } from '../src/http/app.js';
import { openStore } from '../src/store/open-store.js';
import type { Store } from '../src/store/store.js';
import { create, problem, useApp } from './helpers/app.js';
import { catalogOf } from './helpers/catalog.js';
import { READ_KEY, UNKNOWN_KEY, WRITE_KEY, withKeys } from './helpers/keys.js';
import { type RawResponse, rawExchange } from './helpers/raw-http.js';
import { STORE_KINDS } from './helpers/stores.js';

const RUNS = Number(process.env.FUZZ_RUNS ?? 500);
const SEED = process.env.FUZZ_SEED === undefined ? undefined : Number(process.env.FUZZ_SEED);
const BODY_LIMIT = 8192;

interface HostileRequest {
  method: string;
  target: string;
  headers: [string, Buffer][];
  body: Buffer;
}

/** Mostly true: raw non-ASCII in a request target is refused by Node's parser before restock sees it. */
const mostly = fc.nat({ max: 9 }).map((n) => n > 0);

/** Text that may go in a request line or header: no CR, LF (they would reframe the request) or blank. */
const inLine = (text: string) => text.replace(/[\r\n ]/g, (c) => encodeURIComponent(c));
const latin1 = (bytes: Uint8Array) => Buffer.from(bytes.filter((b) => b !== 13 && b !== 10));

/** Weighted towards writes with a body, where most of the parsing happens. */
const methodArb = fc.oneof(
  { weight: 10, arbitrary: fc.constantFrom('POST', 'POST', 'PUT', 'PATCH') },
  { weight: 8, arbitrary: fc.constantFrom('GET', 'GET', 'DELETE', 'HEAD', 'OPTIONS') },
  { weight: 1, arbitrary: fc.constantFrom('TRACE', 'PROPFIND', 'PURGE', 'FOO', 'get', 'M-SEARCH') },
);

const idArb = fc.oneof(
  { weight: 6, arbitrary: fc.constantFrom('1', '2', '3') },
  fc.nat().map(String),
  fc.constantFrom(
    '0',
    '-1',
    '99999999999999999999',
    '1.5',
    '1e3',
    'abc',
    '%31',
    '%00',
    '%zz',
    '..',
    '1;2',
    '__proto__',
  ),
);

const pathArb = fc.oneof(
  {
    weight: 6,
    arbitrary: fc
      .tuple(
        fc.constantFrom('users', 'products', 'user', 'product', 'User', 'userz'),
        fc.option(idArb, { freq: 2 }),
        fc.boolean(),
      )
      .map(([name, id, slash]) => `/${name}${id === null ? '' : `/${id}`}${slash ? '/' : ''}`),
  },
  {
    weight: 2,
    arbitrary: fc.constantFrom(
      '/',
      '/healthz',
      '/readyz',
      '/problems/not-found',
      '/problems/__proto__',
      '/problems/constructor',
      '//users//',
      '/users/../user/1/',
      '/./users/',
      '/users/%2e%2e/',
      '*',
      'http://127.0.0.1/users/',
    ),
  },
  {
    weight: 1,
    arbitrary: fc
      .tuple(fc.array(fc.string({ unit: 'grapheme', maxLength: 6 }), { maxLength: 4 }), mostly)
      .map(([parts, encode]) => `/${parts.map((part) => (encode ? encodeURIComponent(part) : part)).join('/')}`),
  },
);

/**
 * Field names no JSON path of a store takes as they are: backslashes, U+0000, quotes, dots,
 * brackets, among ordinary letters.
 */
const hostileNameArb = fc
  .array(
    fc.oneof(
      { weight: 3, arbitrary: fc.constantFrom('\\', '\u0000', '"', "'", '.', '$', '*', '[0]', '%', '\u2028', 'é') },
      { weight: 2, arbitrary: fc.constantFrom('a', 'name', 'price', 'id', 'tags', 'dims') },
      fc.string({ maxLength: 3 }),
    ),
    { minLength: 1, maxLength: 4 },
  )
  .map((parts) => parts.join(''));
const opArb = fc.constantFrom(
  '',
  '',
  '[eq]',
  '[ne]',
  '[lt]',
  '[lte]',
  '[gt]',
  '[gte]',
  '[in]',
  '[contains]',
  '[startsWith]',
);
/** Numbers as a query writes them: beyond every integer type, tiny, negative, with exponents. */
const hostileNumberArb = fc.oneof(
  fc.constantFrom(
    '1e20',
    '-1e308',
    '1e308',
    '1e309',
    '5e-324',
    '1e-400',
    '-0',
    '1.5',
    '0.1e1',
    '1E+2',
    '9007199254740993',
    '9223372036854775807',
    '9223372036854775808',
    '-9223372036854775809',
  ),
  fc
    .tuple(fc.constantFrom('', '-'), fc.nat({ max: 99 }), fc.integer({ min: -400, max: 400 }))
    .map(([sign, mantissa, exponent]) => `${sign}${mantissa}e${exponent}`),
  fc.double({ noNaN: true }).map(String),
  fc.bigInt().map(String),
);
/** Values with U+0000, backslashes and such numbers, alone or in an `in` list. */
const hostileValueArb = fc.oneof(
  hostileNumberArb,
  fc.constantFrom('\u0000', 'a\u0000b', '"\\u0000"', '\\', '"\\\\"', '"\\ud800"', '"a\\"b"'),
  fc
    .array(fc.oneof(hostileNumberArb, fc.constantFrom('\u0000', '\\', 'a')), { minLength: 1, maxLength: 4 })
    .map((items) => items.join(',')),
);

const queryKeyArb = fc.oneof(
  fc.tuple(fc.oneof(hostileNameArb, fc.constant('id')), opArb).map(([name, op]) => `${name}${op}`),
  fc.constantFrom(
    'limit',
    'cursor',
    'offset',
    'sort',
    'q',
    'fields',
    'name',
    'price',
    'a.b',
    'price[gt]',
    'tags[in]',
    'name[contains]',
    'name[startsWith]',
    'x[bogus]',
    '__proto__',
    'constructor[prototype]',
    '__proto__[polluted]',
    'x[]',
    '[',
    'id',
    'createdAt[lt]',
  ),
  fc.string({ maxLength: 8 }),
);
const queryValueArb = fc.oneof(
  fc.constantFrom(
    '',
    '0',
    '-1',
    '1001',
    '1e400',
    'abc',
    '%',
    '%zz',
    '%00',
    '"q"',
    'null',
    'true',
    ',',
    '-price,name',
    'x'.repeat(300),
  ),
  fc.string({ unit: 'grapheme', maxLength: 12 }),
  fc.integer().map(String),
  hostileValueArb,
);
const queryArb = fc.option(
  fc.tuple(fc.array(fc.tuple(queryKeyArb, queryValueArb), { maxLength: 5 }), mostly).map(([pairs, encode]) => {
    const part = (text: string) => (encode ? encodeURIComponent(text) : inLine(text.replace(/[#&=]/g, '')));
    return `?${pairs.map(([k, v]) => `${part(k)}=${part(v)}`).join('&')}`;
  }),
);

const headerValueArb = fc.oneof(
  { weight: 5, arbitrary: fc.string({ maxLength: 20 }).map((text) => Buffer.from(text.replace(/[\r\n]/g, ''))) },
  { weight: 1, arbitrary: fc.uint8Array({ maxLength: 20 }).map(latin1) },
);
const tokenArb = fc.stringMatching(/^[!#$%&'*+.^_`|~0-9A-Za-z-]{1,12}$/);
const overrideArb = fc.oneof(
  { weight: 4, arbitrary: fc.constant([] as [string, string][]) },
  {
    weight: 1,
    arbitrary: fc.array(
      fc.tuple(
        fc.constantFrom('HTTP-X-HTTP-METHOD', 'X-HTTP-Method', 'X-HTTP-Method-Override', 'x-http-method-override'),
        fc.oneof(
          { weight: 4, arbitrary: fc.constantFrom('GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'delete', ' put ') },
          { weight: 1, arbitrary: fc.constantFrom('HEAD', 'CONNECT', '', 'GET, DELETE') },
          { weight: 1, arbitrary: fc.string({ maxLength: 8 }) },
        ),
      ),
      { minLength: 1, maxLength: 3 },
    ),
  },
);
/** Mostly the write key, so that most requests get past access control into the rest. */
const authorizationArb = fc.oneof(
  { weight: 8, arbitrary: fc.constant(`Bearer ${WRITE_KEY}`) },
  { weight: 2, arbitrary: fc.constant(`Bearer ${READ_KEY}`) },
  {
    weight: 2,
    arbitrary: fc.constantFrom(
      undefined,
      `Bearer ${UNKNOWN_KEY}`,
      'Bearer',
      `bearer   ${WRITE_KEY}`,
      `Bearer ${WRITE_KEY} extra`,
      'Basic dXNlcjpwYXNz',
      'Bearer =====',
    ),
  },
);
const contentTypeArb = fc.constantFrom(
  undefined,
  'application/json',
  'application/json',
  'application/json',
  'application/json',
  'application/merge-patch+json',
  'application/merge-patch+json',
  'application/json; charset=utf-8',
  'application/json; charset=latin1',
  'application/vnd.api+json',
  'text/plain',
  'application/x-www-form-urlencoded',
  'multipart/form-data; boundary=x',
  'application/',
  'application/json;;;',
);
const conditionalArb = fc.oneof(
  { weight: 2, arbitrary: fc.constant({} as Record<string, string>) },
  fc.record(
    {
      'if-match': fc.constantFrom('*', '"1-1"', 'W/"1-1"', '"x"', '', ',,', '"1-1", "2-1"'),
      'if-none-match': fc.constantFrom('*', '"1-1"', '"2-1"', 'garbage'),
      'idempotency-key': fc.oneof(fc.string({ maxLength: 10 }), fc.constant('k'.repeat(300))),
      prefer: fc.constantFrom('return=minimal', 'count=exact', 'return=minimal, count=exact', 'x=y', ''),
      'x-request-id': fc.string({ maxLength: 20 }),
    },
    { requiredKeys: [] },
  ),
);

const keyArb = fc.oneof(
  fc.constantFrom(
    '__proto__',
    'constructor',
    'prototype',
    'toString',
    'hasOwnProperty',
    'id',
    'createdAt',
    'updatedAt',
    '',
    'a.b',
    '\u0000',
    'k'.repeat(250),
  ),
  fc.string({ maxLength: 10 }),
);
/** A JSON object written as text, so that `__proto__` and repeated keys go over the wire as sent. */
const objectTextArb = fc
  .array(fc.tuple(keyArb, fc.jsonValue({ maxDepth: 3 })), { maxLength: 6 })
  .map((entries) => `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${JSON.stringify(v)}`).join(',')}}`);
/** Weighted towards objects (which get past the parser, into the limits and the store). */
const bodyArb: fc.Arbitrary<Buffer> = fc.oneof(
  fc.constant(Buffer.alloc(0)),
  { weight: 6, arbitrary: objectTextArb.map((text) => Buffer.from(text)) },
  fc.jsonValue().map((value) => Buffer.from(JSON.stringify(value) ?? 'null')),
  fc.tuple(objectTextArb, fc.nat()).map(([text, n]) => Buffer.from(text.slice(0, n % Math.max(1, text.length)))),
  {
    weight: 2,
    arbitrary: fc
      .constantFrom(
        '{"__proto__":{"polluted":"yes"}}',
        '{"constructor":{"prototype":{"polluted":"yes"}}}',
        '{"a":{"__proto__":{"polluted":"yes"}},"__proto__":[]}',
        '{"__proto__":null}',
      )
      .map((text) => Buffer.from(text)),
  },
  fc
    .tuple(
      fc.constantFrom(
        '1e400',
        '-1e400',
        '1e-400',
        '123456789012345678901234567890',
        '-0',
        '9007199254740993',
        '1'.repeat(400),
      ),
      fc.boolean(),
    )
    .map(([n, wrapped]) => Buffer.from(wrapped ? `{"n":${n}}` : n)),
  fc
    .tuple(fc.integer({ min: 1, max: 300 }), fc.boolean())
    .map(([depth, array]) =>
      Buffer.from(
        array ? `{"a":${'['.repeat(depth)}1${']'.repeat(depth)}}` : `${'{"a":'.repeat(depth)}1${'}'.repeat(depth)}`,
      ),
    ),
  fc
    .tuple(
      fc.oneof(
        fc.uint8Array({ minLength: 1, maxLength: 40 }),
        fc.constantFrom([0xff], [0xc0, 0x80], [0xed, 0xa0, 0x80], [0xf4, 0x90, 0x80, 0x80], [0xe2, 0x82]),
      ),
      fc.boolean(),
    )
    .map(([bytes, wrapped]) =>
      wrapped ? Buffer.concat([Buffer.from('{"a":"'), Buffer.from(bytes), Buffer.from('"}')]) : Buffer.from(bytes),
    ),
  fc.integer({ min: BODY_LIMIT - 100, max: BODY_LIMIT + 100 }).map((n) => Buffer.from(`{"a":"${'x'.repeat(n)}"}`)),
);

const requestArb: fc.Arbitrary<HostileRequest> = fc
  .record({
    method: methodArb,
    path: pathArb,
    query: queryArb,
    overrides: overrideArb,
    authorization: authorizationArb,
    contentType: contentTypeArb,
    conditional: conditionalArb,
    extra: fc.oneof(
      { weight: 3, arbitrary: fc.constant([] as [string, Buffer][]) },
      { weight: 1, arbitrary: fc.array(fc.tuple(tokenArb, headerValueArb), { minLength: 1, maxLength: 3 }) },
    ),
    body: bodyArb,
  })
  .map((r) => {
    const headers: [string, Buffer][] = [['Host', Buffer.from('127.0.0.1')]];
    const add = (name: string, value: string | Buffer | undefined) => {
      if (value !== undefined) headers.push([name, typeof value === 'string' ? Buffer.from(value) : value]);
    };
    for (const [name, value] of r.overrides) add(name, value);
    add('Authorization', r.authorization);
    add('Content-Type', r.contentType);
    for (const [name, value] of Object.entries(r.conditional)) add(name, value.replace(/[\r\n]/g, ''));
    for (const [name, value] of r.extra) add(name, value);
    if (r.body.length > 0) add('Content-Length', String(r.body.length));
    add('Connection', 'close');
    return { method: r.method, target: inLine(`${r.path}${r.query ?? ''}`), headers, body: r.body };
  });

function bytesOf(request: HostileRequest): Buffer {
  const head: Buffer[] = [Buffer.from(`${request.method} ${request.target} HTTP/1.1\r\n`, 'utf8')];
  for (const [name, value] of request.headers) head.push(Buffer.from(`${name}: `), value, Buffer.from('\r\n'));
  return Buffer.concat([...head, Buffer.from('\r\n'), request.body]);
}

/** Everything stored, versions and timestamps included. */
async function snapshot(store: Store): Promise<string> {
  const all = await Promise.all(
    DEFAULT_COLLECTIONS.map((r) => store.collection(r.plural).list({ where: [], sort: [], limit: 1_000_000 })),
  );
  return JSON.stringify(all.map((records) => records.map(({ position: _p, ...record }) => record)));
}

const PROTOTYPES = [Object.prototype, Array.prototype, Function.prototype, String.prototype, Number.prototype];
const prototypeShapes = () => PROTOTYPES.map((p) => Object.getOwnPropertyNames(p).sort().join());

/** Whether the request cannot change anything whatever it gets: a read on the wire, with no override header. */
function isPlainRead(request: HostileRequest): boolean {
  const tunnelled = request.headers.some(([name]) => /^(http-)?x-http-method/i.test(name));
  return ['GET', 'HEAD', 'OPTIONS'].includes(request.method) && !tunnelled;
}

/** Checks the response and returns its outcome: the status, and the problem type of an error. */
function checkResponse(request: HostileRequest, response: RawResponse | undefined): string {
  assert.ok(response, 'the server answered');
  if (response.status >= 500) {
    assert.equal(response.status, 503, `a ${response.status}: ${response.body.toString()}`);
  }
  if (response.status < 400 || request.method === 'HEAD') return String(response.status);
  assert.match(String(response.headers['content-type']), /^application\/problem\+json/, `a ${response.status}`);
  const problem = JSON.parse(response.body.toString()) as { type: string; status: number; title: string };
  assert.equal(problem.status, response.status);
  assert.ok(problem.type.startsWith('/problems/') && problem.title, response.body.toString());
  if (response.status === 503) assert.equal(problem.type, '/problems/overloaded');
  return `${response.status} ${problem.type.slice('/problems/'.length)}`;
}

for (const kind of STORE_KINDS) {
  describe(`hostile input over real HTTP (${kind.name})`, () => {
    it(`${RUNS} random requests: no 5xx, problems for every error, nothing changed by a refusal, no pollution`, async (t) => {
      const db = await kind.create();
      const store = await openStore(db.url, catalogOf(DEFAULT_COLLECTIONS.map((r) => r.plural)));
      const config = defaultConfig({
        maxEventLoopDelay: 0,
        ...withKeys({ rateLimitMax: 0 }),
        databaseUrl: db.url,
        bodyLimit: BODY_LIMIT,
        // Should a request ever leave the server waiting for bytes, it ends in a 408, not a hang.
        headersTimeout: 3000,
        requestTimeout: 3000,
      });
      const app = await buildApp({ config, store, logStream: false });
      try {
        for (const { plural } of DEFAULT_COLLECTIONS) {
          await store.collection(plural).createMany(['{"name":"a","price":1}', '{"name":"b","tags":["x"]}', '{}']);
        }
        await app.listen({ host: '127.0.0.1', port: 0 });
        const port = (app.server.address() as AddressInfo).port;
        const shapes = prototypeShapes();
        const outcomes = new Map<string, number>();
        let unchangedChecks = 0;
        await fc.assert(
          fc.asyncProperty(requestArb, async (request) => {
            const before = await snapshot(store);
            const response = await rawExchange(port, bytesOf(request));
            const outcome = checkResponse(request, response);
            outcomes.set(outcome, (outcomes.get(outcome) ?? 0) + 1);
            if ((response?.status ?? 0) >= 400 || isPlainRead(request)) {
              assert.equal(await snapshot(store), before, 'a refused request or a read changed nothing');
              unchangedChecks++;
            }
            assert.deepEqual(prototypeShapes(), shapes, 'no prototype gained a property');
            assert.equal(({} as Record<string, unknown>).polluted, undefined);
          }),
          { numRuns: RUNS, ...(SEED === undefined ? {} : { seed: SEED }) },
        );
        const health = await rawExchange(
          port,
          Buffer.from('GET /healthz HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n'),
        );
        assert.equal(health?.status, 200, 'the server still answers');
        const summary = [...outcomes].sort(([a], [b]) => a.localeCompare(b)).map(([outcome, n]) => `${outcome} ×${n}`);
        t.diagnostic(`${RUNS} requests, ${unchangedChecks} checked to change nothing; outcomes: ${summary.join(', ')}`);
        // The generator is not so hostile that nothing gets through: some writes succeed.
        const succeeded = [...outcomes].filter(([outcome]) => outcome.startsWith('2')).reduce((n, [, k]) => n + k, 0);
        assert.ok(succeeded >= RUNS / 20, `${succeeded} requests got through to a 2xx`);
      } finally {
        await app.close();
        await store.close();
        await db.drop();
      }
    });
  });
}

/** Records with the names and values hostile queries aim at, the same on every store. */
const LIST_SEED: Record<string, unknown>[] = [
  { name: 'a', price: 1, 'a\\': 1, tags: ['x', 1e20], dims: { w: 2 } },
  { name: 'b\\', price: -1e308, dims: { w: 5e-324 }, 'a\\': 'x\\y' },
  { name: 'é', price: 1e20, $: true, '*': null, 'a.b': 2, 'a"b': 1 },
  {},
  { name: 'c', price: 9007199254740992, tags: [] },
  { name: '"q"', price: 1.5, id2: -0.5 },
];

/** A list query: filters on hostile names and on id, sort, fields and q, each pair percent-encoded. */
const listQueryArb = fc
  .array(
    fc.oneof(
      {
        weight: 4,
        arbitrary: fc.tuple(
          fc.tuple(hostileNameArb, opArb).map(([n, o]) => `${n}${o}`),
          hostileValueArb,
        ),
      },
      {
        weight: 3,
        arbitrary: fc.tuple(
          opArb.map((op) => `id${op}`),
          hostileNumberArb,
        ),
      },
      {
        weight: 2,
        arbitrary: fc.tuple(
          fc.constantFrom('sort', 'fields'),
          fc
            .array(fc.tuple(fc.boolean(), hostileNameArb), { minLength: 1, maxLength: 3 })
            .map((keys) => keys.map(([down, name]) => `${down ? '-' : ''}${name}`).join(',')),
        ),
      },
      fc.tuple(fc.constant('q'), hostileValueArb),
    ),
    { minLength: 1, maxLength: 3 },
  )
  .map((pairs) => pairs.map(([k, v]) => `${encodeURIComponent(k)}=${encodeURIComponent(v)}`).join('&'));

/**
 * What a list answer says, without what differs between two databases: the timestamps, and
 * with `sort=` the order of the records. Arrays and objects sort by their JSON text, which
 * each database writes its own way (PostgreSQL with blanks, numbers written out), so there
 * the stores agree on the records and the order of the types, not on the order within them.
 */
function listOutcome(response: LightMyRequestResponse, sorted: boolean): unknown {
  if (response.statusCode >= 400) {
    const problem = JSON.parse(response.body) as { type: string; errors?: unknown };
    return { status: response.statusCode, type: problem.type, errors: problem.errors };
  }
  const records = JSON.parse(response.body) as Record<string, unknown>[];
  const next = response.headers.link !== undefined;
  const rest = records.map(({ createdAt: _c, updatedAt: _u, ...fields }) => fields);
  if (sorted) rest.sort((a, b) => Number(a.id) - Number(b.id));
  return { status: response.statusCode, next, records: rest };
}

describe(`hostile list queries on ${STORE_KINDS.map((k) => k.name).join(' and ')}: no 5xx, every store alike`, () => {
  const contexts = STORE_KINDS.map((kind) => ({ kind, ctx: useApp(kind, { rateLimitMax: 0 }) }));
  before(async () => {
    for (const { ctx } of contexts) for (const record of LIST_SEED) await create(ctx.app, 'product', record);
  });
  it(`${RUNS} random list queries with backslashes, U+0000 and extreme numbers`, async (t) => {
    const statuses = new Map<number, number>();
    await fc.assert(
      fc.asyncProperty(listQueryArb, async (query) => {
        const outcomes = [];
        for (const { kind, ctx } of contexts) {
          const response = await ctx.app.inject({ url: `/products/?${query}` });
          assert.ok(response.statusCode < 500, `${kind.name}: ${query} → ${response.statusCode} ${response.body}`);
          if (response.statusCode >= 400) problem(response, response.statusCode);
          outcomes.push(listOutcome(response, /(^|&)sort=/.test(query)));
          statuses.set(response.statusCode, (statuses.get(response.statusCode) ?? 0) + 1);
        }
        for (const outcome of outcomes.slice(1)) assert.deepEqual(outcome, outcomes[0], `stores differ on ${query}`);
      }),
      { numRuns: RUNS, includeErrorInReport: true, ...(SEED === undefined ? {} : { seed: SEED }) },
    );
    t.diagnostic(`statuses: ${[...statuses].map(([status, n]) => `${status} ×${n}`).join(', ')}`);
    assert.ok((statuses.get(200) ?? 0) >= RUNS / 10, 'some queries are answered');
  });
});
