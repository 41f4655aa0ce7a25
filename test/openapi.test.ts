/**
 * SPEC §11: the OpenAPI 3.1 document, generated from the route schemas, checked by an
 * OpenAPI validator, against the routes the app really registers (and the tunnelled forms
 * of its collections' operations), and against real requests and responses
 * (./helpers/openapi-validator.ts); and the reference page that renders it.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { Validator } from '@seriousme/openapi-schema-validator';
import type { FastifyInstance, InjectOptions, RouteOptions } from 'fastify';
import { parse as parseYaml } from 'yaml';
import { type Config, defaultConfig } from '../src/config/index.js';
import { DEFAULT_COLLECTIONS } from '../src/core/default-collections.js';
import { buildApp } from '../src/http/app.js';
import { body, create, JSON_HEADERS, type TestContext, useApp } from './helpers/app.js';
import { injectAs, withKeys } from './helpers/keys.js';
import { withResponsesFollowed } from './helpers/openapi-responses.js';
import { type ContractRecorder, checkAgainstDocument, itKeptTheDocument } from './helpers/openapi-validator.js';
import { STORE_KINDS, sqliteKind, type TestDatabase, type TestStoreKind } from './helpers/stores.js';

const METHODS = ['get', 'put', 'post', 'delete', 'patch', 'head'] as const;

/** The override header's component; its aliases are read alike but not listed (they must agree with it). */
const OVERRIDE_COMPONENT = 'HttpXHttpMethod';
const OVERRIDE_ALIASES = ['X-HTTP-Method', 'X-HTTP-Method-Override'];

interface OpenApiDocument {
  openapi: string;
  info: { license?: { name: string; identifier?: string }; description: string };
  servers: { url: string }[];
  paths: Record<string, Record<string, Operation>>;
  components: {
    schemas: Record<string, Record<string, unknown>>;
    parameters: Record<string, { name: string; required?: boolean; description?: string; schema: { enum?: string[] } }>;
    securitySchemes: Record<string, { type: string; scheme?: string; bearerFormat?: string }>;
  };
  security?: Record<string, string[]>[];
}
interface Parameter {
  in?: string;
  name?: string;
  $ref?: string;
  required?: boolean;
  style?: string;
  explode?: boolean;
  schema?: { $ref?: string; default?: unknown };
}
interface Operation {
  operationId?: string;
  summary?: string;
  description?: string;
  tags?: string[];
  security?: Record<string, string[]>[];
  parameters?: Parameter[];
  requestBody?: { required?: boolean; content: Record<string, { schema: unknown }> };
  responses: Record<
    string,
    { content?: Record<string, { schema: { $ref?: string } }>; headers?: Record<string, unknown> }
  >;
}

/** The paths anyone may call when keys are configured, and those the rate limit leaves alone. */
const PUBLIC_PATHS = ['/', '/healthz', '/readyz', '/openapi.json', '/openapi.yaml', '/problems/{kind}'];
const PROBE_PATHS = ['/healthz', '/readyz'];
/** Paths that need a write key whatever the method (webhooks: their secrets and deliveries), HEAD included. */
const WRITE_KEY_PATHS = /^\/webhooks?\//;
/** The headers each refusal of the guards documents (and sends). */
const GUARD_HEADERS: Record<string, string[]> = {
  '401': ['WWW-Authenticate'],
  '403': ['WWW-Authenticate'],
  '429': ['Retry-After', 'RateLimit-Limit', 'RateLimit-Remaining', 'RateLimit-Reset'],
};
/** As a client reaches a deployed server (the document's server is the request's origin). */
const HOST = { host: 'restock.test:3000' };

/** `/user/:id/` as OpenAPI writes it: `/user/{id}/`. */
const openApiPath = (url: string) => url.replace(/:(\w+)/g, '{$1}');
const capitalized = (name: string) => name.charAt(0).toUpperCase() + name.slice(1);

/** The tunnelled forms METHOD_OVERRIDE's default (get,post) adds for a collection, as `method path`. */
function tunnelledForms({ plural, singular }: { plural: string; singular: string }): string[] {
  return [`post /${plural}/`, `post /${plural}/events/`, `get /${singular}/`, `post /${singular}/{id}/`];
}

/** The webhooks' tunnelled forms of their own (the others widen the wire method's operation on the path). */
const WEBHOOK_TUNNELS = [
  'get /webhook/',
  'post /webhook/{id}/',
  'get /webhook/{id}/secret/',
  'post /webhook/{id}/deliveries/',
  'get /webhook/{id}/replay/',
];

for (const kind of STORE_KINDS) {
  describe(`the OpenAPI document (${kind.name})`, () => {
    let db: TestDatabase;
    let app: FastifyInstance;
    /** The document as served, and as read: each shared response written out where its `$ref` is. */
    let served: OpenApiDocument;
    let doc: OpenApiDocument;
    const checked: { contract?: ContractRecorder } = {};
    const routes: RouteOptions[] = [];
    before(async () => {
      db = await kind.create();
      app = await buildApp({
        config: defaultConfig({ maxEventLoopDelay: 0, databaseUrl: db.url }),
        logStream: false,
        onRoute: (route) => routes.push(route),
      });
      checked.contract = checkAgainstDocument(app);
      await app.ready();
      await checked.contract.load();
      const response = await app.inject({ url: '/openapi.json', headers: HOST });
      assert.equal(response.statusCode, 200);
      assert.equal(response.headers['content-type'], 'application/json; charset=utf-8');
      served = body<OpenApiDocument>(response);
      doc = withResponsesFollowed(served);
    });
    after(async () => {
      await app?.close();
      await db?.drop();
    });

    it('is a valid OpenAPI 3.1 document: an operationId on every operation, a license, limit optional', async () => {
      assert.equal(doc.openapi, '3.1.0');
      const validator = new Validator();
      const result = await validator.validate(structuredClone(served) as unknown as Record<string, unknown>);
      assert.equal(result.valid, true, JSON.stringify(result.errors, null, 2));
      const operations = Object.entries(doc.paths).flatMap(([path, item]) =>
        METHODS.flatMap((m) => (item[m] ? [[`${m} ${path}`, item[m]] as const] : [])),
      );
      for (const [what, operation] of operations) assert.match(operation.operationId ?? '', /^[a-z]\w+$/, what);
      const ids = operations.map(([, operation]) => operation.operationId);
      assert.equal(new Set(ids).size, ids.length, 'operationIds are unique');
      assert.deepEqual(doc.info.license, { name: 'MIT', identifier: 'MIT' });
      for (const { plural } of DEFAULT_COLLECTIONS) {
        const limit = doc.paths[`/${plural}/`]?.get?.parameters?.find((p) => p.in === 'query' && p.name === 'limit');
        assert.equal(limit?.required, false, 'limit is optional');
        assert.equal(limit?.schema?.default, 100);
      }
    });

    it('holds every registered route that is not hidden, the tunnelled forms, and no alias', () => {
      const visible = routes.filter((r) => !(r.schema as { hide?: boolean } | undefined)?.hide);
      const registered = visible.flatMap((r) =>
        [r.method].flat().map((m) => `${m.toLowerCase()} ${openApiPath(r.url)}`),
      );
      // Fastify adds a HEAD beside every GET, and the document lists it too: a proxy refuses what it leaves out.
      const gets = registered.filter((route) => route.startsWith('get '));
      assert.deepEqual(
        registered.filter((route) => route.startsWith('head ')).sort(),
        gets.map((route) => route.replace('get ', 'head ')).sort(),
      );
      assert.ok(registered.length >= DEFAULT_COLLECTIONS.length * 10 + 14, `only ${registered.length} visible routes`);
      const documented = Object.entries(doc.paths).flatMap(([path, item]) =>
        METHODS.filter((m) => item[m]).map((m) => `${m} ${path}`),
      );
      const tunnels = [...DEFAULT_COLLECTIONS.flatMap(tunnelledForms), ...WEBHOOK_TUNNELS];
      assert.deepEqual(documented.sort(), [...new Set([...registered, ...tunnels])].sort());
      for (const { plural, singular } of DEFAULT_COLLECTIONS) {
        for (const path of [`/${plural}/`, `/${singular}/`, `/${singular}/{id}/`]) assert.ok(doc.paths[path], path);
        assert.equal(doc.paths[`/${plural}/{id}/`], undefined, 'the plural item alias is hidden');
        assert.equal(doc.paths[`/${plural}/`]?.post?.operationId, `bulkCreate${capitalized(singular)}s`);
      }
      for (const path of ['/', '/healthz', '/readyz', '/metrics', '/openapi.json', '/problems/{kind}']) {
        assert.ok(doc.paths[path]?.get, path);
      }
      assert.ok(!Object.keys(doc.paths).some((p) => p.startsWith('/docs') || p.startsWith('/console')));
    });

    it('documents each operation: parameters, bodies, success and every error as a problem', () => {
      for (const collection of DEFAULT_COLLECTIONS) {
        const Name = capitalized(collection.singular);
        const item = doc.paths[`/${collection.singular}/{id}/`] ?? {};
        const operations: [string, Operation | undefined, string[]][] = [
          // GET may carry POST here, a bulk create: its answers too.
          [
            'list',
            doc.paths[`/${collection.plural}/`]?.get,
            ['200', '201', '400', '405', '409', '410', '413', '415', '422', '429', '500', '503', '507'],
          ],
          [
            'create',
            doc.paths[`/${collection.singular}/`]?.post,
            ['201', '400', '405', '409', '410', '413', '415', '422', '429', '500', '503', '507'],
          ],
          // GET may carry PUT, PATCH and DELETE here (METHOD_OVERRIDE's default): their answers too.
          ['read', item.get, ['200', '204', '304', '400', '404', '405', '412', '413', '415', '429', '500', '503']],
          ['modify', item.put, ['200', '400', '404', '405', '412', '413', '415', '429', '500', '503']],
          ['patch', item.patch, ['200', '400', '404', '405', '412', '413', '415', '429', '500', '503']],
          ['delete', item.delete, ['200', '204', '400', '404', '405', '412', '429', '500', '503']],
        ];
        for (const [name, operation, statuses] of operations) {
          assert.ok(operation, `${collection.plural} ${name}`);
          assert.deepEqual(Object.keys(operation.responses).sort(), statuses.sort(), `${collection.plural} ${name}`);
          assert.deepEqual(operation.tags, [collection.plural]);
          // The override header is referenced once, never written out inline, and only where the
          // wire method may carry it: on PUT, PATCH and DELETE the server refuses it.
          const parameters = operation.parameters ?? [];
          const inline = parameters.filter((p) => p.in === 'header').map((p) => p.name?.toLowerCase());
          const refs = parameters.map((p) => p.$ref).filter(Boolean);
          for (const header of ['HTTP-X-HTTP-METHOD', ...OVERRIDE_ALIASES]) {
            assert.ok(!inline.includes(header.toLowerCase()), `${collection.plural} ${name} inlines ${header}`);
          }
          const carries = name === 'list' || name === 'create' || name === 'read';
          assert.equal(
            refs.filter((r) => r === `#/components/parameters/${OVERRIDE_COMPONENT}`).length,
            carries ? 1 : 0,
            `${collection.plural} ${name} references HTTP-X-HTTP-METHOD`,
          );
          const component = doc.components.parameters[OVERRIDE_COMPONENT];
          assert.equal(component?.name, 'HTTP-X-HTTP-METHOD');
          assert.equal(component?.required, false);
          assert.deepEqual(component?.schema.enum, ['GET', 'POST', 'PUT', 'PATCH', 'DELETE']);
          for (const alias of OVERRIDE_ALIASES) assert.ok(component?.description?.includes(alias), alias);
          for (const [status, response] of Object.entries(operation.responses)) {
            if (Number(status) < 400) continue;
            assert.equal(
              response.content?.['application/problem+json']?.schema.$ref,
              '#/components/schemas/Problem',
              `${collection.plural} ${name} ${status}`,
            );
          }
          assert.deepEqual(Object.keys(operation.responses['405']?.headers ?? {}), ['Allow']);
        }
        const ref = (schema: { $ref?: string } | undefined) => schema?.$ref?.replace('#/components/schemas/', '');
        const created = doc.paths[`/${collection.singular}/`]?.post;
        const bulk = doc.paths[`/${collection.plural}/`]?.post;
        type Many = { $ref?: string; items?: { $ref?: string }; minItems?: number; maxItems?: number };
        const json = (content: Record<string, { schema: unknown }> | undefined) =>
          content?.['application/json']?.schema as Many | undefined;
        // One record at the singular path, an array at the plural: each create has one answer type.
        assert.equal(ref(json(created?.requestBody?.content)), `${Name}Fields`);
        assert.equal(ref(json(created?.responses['201']?.content)), Name);
        assert.equal(created?.operationId, `create${Name}`);
        const sentMany = json(bulk?.requestBody?.content);
        assert.deepEqual([ref(sentMany?.items), sentMany?.minItems, sentMany?.maxItems], [`${Name}Fields`, 1, 1000]);
        assert.equal(ref(json(bulk?.responses['201']?.content)?.items), Name);
        assert.ok(bulk?.responses['201']?.headers?.['Idempotent-Replayed'], 'a bulk create replays too');
        assert.equal(bulk?.responses['201']?.headers?.Location, undefined, 'no one Location names them all');
        assert.ok(bulk?.responses['413'] && created?.responses['201']?.headers?.Location);
        // Any +json type is read as JSON: the document says so with a range.
        assert.deepEqual(Object.keys(created?.requestBody?.content ?? {}), ['application/json', 'application/*+json']);
        assert.deepEqual(Object.keys(bulk?.requestBody?.content ?? {}), ['application/json', 'application/*+json']);
        assert.equal(
          ref(item.patch?.requestBody?.content['application/merge-patch+json']?.schema as { $ref?: string }),
          `${Name}Patch`,
        );
        assert.ok(item.get?.parameters?.some((p) => p.in === 'path' && p.name === 'id'));
        assert.ok(item.get?.parameters?.some((p) => p.in === 'header' && p.name === 'If-None-Match'));
        assert.ok(item.delete?.parameters?.some((p) => p.in === 'header' && p.name === 'Prefer'));
        const list = doc.paths[`/${collection.plural}/`]?.get;
        const query = list?.parameters?.filter((p) => p.in === 'query').map((p) => p.name) ?? [];
        for (const name of ['limit', 'cursor', 'sort', 'q']) assert.ok(query.includes(name), `list documents ${name}`);
        // A page cut down by fields= holds records without their other fields.
        type OneOrMany = { anyOf?: { $ref?: string }[] };
        const page = list?.responses['200']?.content?.['application/json']?.schema as { items?: OneOrMany };
        assert.deepEqual(page.items?.anyOf?.map(ref), [Name, `${Name}Projection`]);
        assert.deepEqual(doc.components.schemas[`${Name}Projection`]?.required, ['id']);
        assert.ok(doc.components.schemas[Name]?.required, `${Name} requires the system fields`);
      }
    });

    it('documents each tunnelled form as an operation of its own, its header required', () => {
      const components = doc.components.parameters;
      for (const collection of DEFAULT_COLLECTIONS) {
        const Name = capitalized(collection.singular);
        const tunnel = doc.paths[`/${collection.singular}/{id}/`]?.post;
        assert.equal(tunnel?.operationId, `tunnel${Name}`);
        const header = tunnel?.parameters?.find((p) => p.$ref?.includes('HttpXHttpMethodFor'))?.$ref;
        assert.equal(header, '#/components/parameters/HttpXHttpMethodForGetPutPatchDelete');
        const required = components.HttpXHttpMethodForGetPutPatchDelete;
        assert.deepEqual(
          [required?.name, required?.required, required?.schema.enum],
          ['HTTP-X-HTTP-METHOD', true, ['GET', 'PUT', 'PATCH', 'DELETE']],
        );
        // The aliases are not listed beside it (the server reads them alike; they must agree).
        const refs = tunnel?.parameters?.map((p) => p.$ref).filter(Boolean);
        assert.deepEqual(refs, [header]);
        // The answers of each method it carries, the body of those that take one.
        assert.deepEqual(Object.keys(tunnel?.responses ?? {}).sort(), [
          ...['200', '204', '304', '400', '404', '405', '412', '413', '415', '429', '500', '503'],
        ]);
        assert.equal(
          tunnel?.responses['200']?.content?.['application/json']?.schema.$ref,
          `#/components/schemas/${Name}`,
        );
        assert.equal(tunnel?.requestBody?.required, false);
        assert.deepEqual(Object.keys(tunnel?.requestBody?.content ?? {}), [
          'application/json',
          'application/*+json',
          'application/merge-patch+json',
        ]);
        const names = (tunnel?.parameters ?? []).filter((p) => !p.$ref).map((p) => `${p.in} ${p.name}`);
        for (const name of ['path id', 'query expand', 'header If-None-Match', 'header If-Match', 'header Prefer']) {
          assert.ok(names.includes(name), name);
        }
        // GET carrying POST creates: the create path's GET form, which requires the header.
        const createByGet = doc.paths[`/${collection.singular}/`]?.get;
        assert.equal(createByGet?.operationId, `create${Name}Tunnelled`);
        assert.ok(createByGet?.parameters?.some((p) => p.$ref === '#/components/parameters/HttpXHttpMethodForPost'));
        assert.deepEqual(components.HttpXHttpMethodForPost?.schema.enum, ['POST']);
        assert.ok(createByGet?.responses['201']);
        // POST on the plural path is the bulk create, which the header (optional there) may turn into the list.
        const listByPost = doc.paths[`/${collection.plural}/`]?.post;
        assert.equal(listByPost?.operationId, `bulkCreate${Name}s`);
        assert.ok(listByPost?.parameters?.some((p) => p.$ref === '#/components/parameters/HttpXHttpMethod'));
        assert.ok(listByPost?.parameters?.some((p) => p.name === 'limit' && p.required === false));
        assert.equal(listByPost?.requestBody?.required, false, 'a list sends no body');
        assert.ok(listByPost?.responses['200'] && listByPost.responses['201']);
      }
      assert.match(doc.info.description, /tunnel the other methods/);
    });

    it('documents the known fields of each collection as deepObject filters', () => {
      const fields: Record<string, string[]> = {
        users: ['id', 'createdAt', 'updatedAt', 'email'],
        products: ['id', 'createdAt', 'updatedAt', 'sku', 'price'],
      };
      for (const [plural, expected] of Object.entries(fields)) {
        for (const path of [`/${plural}/`, `/${plural}/events/`]) {
          const filters = (doc.paths[path]?.get?.parameters ?? []).filter((p) => p.style === 'deepObject');
          assert.deepEqual(
            filters.map((p) => p.name),
            expected,
            path,
          );
          for (const filter of filters) {
            assert.deepEqual([filter.in, filter.explode, filter.required], ['query', true, false]);
            assert.equal(filter.schema?.$ref, '#/components/schemas/FieldFilter');
          }
        }
      }
      const filter = doc.components.schemas.FieldFilter as { anyOf: { properties?: Record<string, unknown> }[] };
      assert.deepEqual(Object.keys(filter.anyOf[1]?.properties ?? {}), [
        ...['eq', 'ne', 'lt', 'lte', 'gt', 'gte', 'in', 'contains', 'startsWith'],
      ]);
    });

    it('documents 429 wherever the rate limit (on by default) counts, and no 401 or 403 without keys', () => {
      assertGuards(doc, { keys: false, rateLimit: true });
    });

    it('describes what the server really answers, tunnelled forms and filters included', async () => {
      const made = await create(app, 'user', { name: 'Ada', nested: { a: [1] } });
      const send = (options: InjectOptions) => app.inject(options);
      const item = `/user/${made.id}/`;
      await send({ method: 'POST', url: '/user/', headers: JSON_HEADERS, payload: { x: 1 } });
      await send({ url: '/users/?limit=1' });
      await send({ url: '/users/?limit=0' });
      await send({ url: '/products/?price[gte]=1&price[lt]=100&sku=TEA-1' });
      await send({ url: '/users/?fields=name&email[startsWith]=a' });
      await send({ url: item });
      await send({ url: '/user/999999/' });
      await send({ url: item, headers: { 'if-none-match': `"${made.id}-1"` } });
      await send({ method: 'PUT', url: item, headers: JSON_HEADERS, payload: '[1]' });
      const tunnelled = { ...JSON_HEADERS, 'HTTP-X-HTTP-METHOD': 'PUT' };
      await send({ method: 'POST', url: item, headers: tunnelled, payload: { b: 2 } });
      await send({ method: 'POST', url: item, headers: { 'X-HTTP-Method-Override': 'get' } });
      await send({
        method: 'GET',
        url: item,
        headers: { ...JSON_HEADERS, 'X-HTTP-Method': 'PATCH' },
        payload: { c: 3 },
      });
      await send({ method: 'POST', url: '/users/', headers: { 'HTTP-X-HTTP-METHOD': 'GET' } });
      await send({
        method: 'GET',
        url: '/user/',
        headers: { ...JSON_HEADERS, 'HTTP-X-HTTP-METHOD': 'POST' },
        payload: {},
      });
      await send({ method: 'POST', url: '/user/', headers: { 'HTTP-X-HTTP-METHOD': 'GET' } });
      await send({ method: 'DELETE', url: item, headers: { prefer: 'return=minimal' } });
      await send({ method: 'POST', url: item, headers: { 'HTTP-X-HTTP-METHOD': 'DELETE' } });
      await send({ url: '/healthz' });
      await send({ url: '/readyz' });
      await send({ url: '/problems/not-found' });
      await send({ url: '/' });
      // Either create path takes one record or an array, directly or carried by GET.
      await send({ method: 'POST', url: '/users/', headers: JSON_HEADERS, payload: [{ a: 1 }, { a: 2 }] });
      await send({ method: 'POST', url: '/user/', headers: JSON_HEADERS, payload: [{ a: 3 }] });
      await send({ method: 'POST', url: '/users/', headers: JSON_HEADERS, payload: { a: 4 } });
      await send({ url: '/users/', headers: { ...JSON_HEADERS, 'HTTP-X-HTTP-METHOD': 'POST' }, payload: [{ a: 5 }] });
      // HEAD wherever GET is served; a leading zero names no record.
      const kept = `/user/${(await create(app, 'user', { name: 'Grace' })).id}/`;
      for (const url of [kept, '/users/', '/users/events/', '/healthz']) await send({ method: 'HEAD', url });
      await send({ method: 'HEAD', url: kept, headers: { 'if-none-match': (await send({ url: kept })).headers.etag } });
      await send({ url: kept.replace('/user/', '/user/0') });
      const matched = checked.contract?.matched ?? [];
      for (const exchange of [
        'createUser 201',
        'listUsers 200',
        'listUsers 400',
        'listProducts 200',
        'readUser 200',
        'readUser 404',
        'readUser 304',
        'modifyUser 400',
        'tunnelUser 200',
        'bulkCreateUsers 200',
        'bulkCreateUsers 201',
        'listUsers 201',
        'readUserHead 200',
        'readUserHead 304',
        'listUsersHead 200',
        'followUserChangesHead 200',
        'getLivenessHead 200',
        'createUserTunnelled 201',
        'deleteUser 204',
        'tunnelUser 404',
        'getLiveness 200',
        'getReadiness 200',
        'getProblemType 200',
        'getIndex 200',
      ]) {
        assert.ok(matched.includes(exchange), `${exchange} was checked`);
      }
      assert.deepEqual(checked.contract?.violations, []);
    });

    it('is served as YAML too, the same document', async () => {
      const response = await app.inject({ url: '/openapi.yaml', headers: HOST });
      assert.equal(response.statusCode, 200);
      assert.equal(response.headers['content-type'], 'application/yaml; charset=utf-8');
      assert.deepEqual(parseYaml(response.body), served);
    });

    it('has a reference page at /docs/ whose assets all come from this server', async () => {
      for (const url of ['/docs/', '/docs']) {
        const page = await app.inject({ url });
        assert.equal(page.statusCode, 200, url);
        assert.match(String(page.headers['content-type']), /^text\/html/);
        const assets = [...page.body.matchAll(/(?:src|href)="([^"]+)"/g)].map((m) => m[1] as string);
        assert.ok(assets.length >= 3);
        for (const asset of assets) {
          assert.doesNotMatch(asset, /^(https?:)?\/\//, `${asset} is local`);
          const resolved = new URL(asset, `http://127.0.0.1${url}`).pathname;
          assert.equal((await app.inject({ url: resolved })).statusCode, 200, resolved);
        }
        const policy = String(page.headers['content-security-policy']);
        assert.match(policy, /default-src 'self'/);
        assert.match(policy, /connect-src 'self'/);
        assert.doesNotMatch(policy, /https:|validator\.swagger\.io|upgrade-insecure-requests/);
      }
      const init = await app.inject({ url: '/docs/static/swagger-initializer.js' });
      assert.match(init.body, /validatorUrl: null/);
    });

    itKeptTheDocument(checked);
  });
}

for (const kind of STORE_KINDS) {
  describe(`the OpenAPI document with API keys and a small request budget (${kind.name})`, () => {
    const ctx = useDocument(kind, withKeys({ rateLimitMax: 5 }));

    it('is still a valid document, with 401 and 429 on guarded operations, and 403 where a write can come', async () => {
      const result = await new Validator().validate(structuredClone(ctx.served) as unknown as Record<string, unknown>);
      assert.equal(result.valid, true, JSON.stringify(result.errors));
      assertGuards(ctx.doc, { keys: true, rateLimit: true });
    });

    it('describes the refusals the server really sends, headers included', async () => {
      const { app } = ctx;
      assert.equal((await injectAs(app, 'none', { url: '/users/' })).statusCode, 401);
      assert.equal((await injectAs(app, 'unknown', { url: '/metrics' })).statusCode, 401);
      const write = { method: 'POST', url: '/user/', headers: JSON_HEADERS, payload: { a: 1 } } as const;
      assert.equal((await injectAs(app, 'read', write)).statusCode, 403);
      const tunnelled = { method: 'POST', url: '/user/1/', headers: { 'x-http-method': 'DELETE' } } as const;
      assert.equal((await injectAs(app, 'read', tunnelled)).statusCode, 403);
      const byGet = { url: '/user/1/', headers: { 'x-http-method': 'DELETE' } } as const;
      assert.equal((await injectAs(app, 'read', byGet)).statusCode, 403);
      // The write key's budget is 5 requests a window: the sixth read is over it.
      const reads = [];
      for (let i = 0; i < 6; i++) reads.push(await injectAs(app, 'write', { url: '/user/1/' }));
      assert.equal(reads.at(-1)?.statusCode, 429);
      const matched = ctx.contract?.matched ?? [];
      for (const exchange of ['listUsers 401', 'getMetrics 401', 'createUser 403', 'tunnelUser 403', 'readUser 403']) {
        assert.ok(matched.includes(exchange), exchange);
      }
      assert.ok(matched.includes('readUser 429'));
    });

    itKeptTheDocument(ctx);
  });

  describe(`the OpenAPI document with the rate limit off (${kind.name})`, () => {
    const ctx = useApp(kind, { rateLimitMax: 0 });

    it('documents no 429, nor 401 or 403 without keys', async () => {
      assertGuards(withResponsesFollowed(body<OpenApiDocument>(await ctx.app.inject({ url: '/openapi.json' }))), {
        keys: false,
        rateLimit: false,
      });
    });
  });
}

describe('the tunnelled forms follow METHOD_OVERRIDE', () => {
  const post = useDocument(sqliteKind, { methodOverride: new Set(['POST']) });
  const off = useDocument(sqliteKind, { methodOverride: new Set() });

  it('post: the POST forms, no GET form, and GET operations that only read', () => {
    const { doc } = post;
    for (const collection of DEFAULT_COLLECTIONS) {
      assert.equal(
        doc.paths[`/${collection.singular}/{id}/`]?.post?.operationId,
        `tunnel${capitalized(collection.singular)}`,
      );
      assert.ok(doc.paths[`/${collection.plural}/`]?.post);
      assert.equal(doc.paths[`/${collection.singular}/`]?.get, undefined, 'no create through GET');
      const read = doc.paths[`/${collection.singular}/{id}/`]?.get;
      assert.deepEqual(Object.keys(read?.responses ?? {}), ['200', '304', '400', '404', '405', '429', '500', '503']);
      assert.equal(read?.requestBody, undefined);
    }
    assert.match(doc.info.description, /only send POST tunnel/);
  });

  it('off: no tunnelled form at all', () => {
    const { doc } = off;
    for (const collection of DEFAULT_COLLECTIONS) {
      assert.equal(doc.paths[`/${collection.singular}/{id}/`]?.post, undefined);
      // POST on the plural path is the bulk create alone: no list carried.
      const bulk = doc.paths[`/${collection.plural}/`]?.post;
      assert.equal(bulk?.operationId, `bulkCreate${capitalized(collection.singular)}s`);
      assert.equal(bulk?.responses['200'], undefined);
      assert.equal(doc.paths[`/${collection.singular}/`]?.get, undefined);
    }
    assert.doesNotMatch(doc.info.description, /tunnel/);
    assert.ok(!Object.keys(doc.components.parameters).some((name) => name.includes('For')));
  });

  it('post: the server answers as the document says, and refuses what it leaves out', async () => {
    const { app } = post;
    const made = await create(app, 'user', { a: 1 });
    const headers = { 'HTTP-X-HTTP-METHOD': 'DELETE' };
    assert.equal((await app.inject({ method: 'POST', url: `/user/${made.id}/`, headers })).statusCode, 200);
    assert.equal((await app.inject({ url: `/user/${made.id}/`, headers })).statusCode, 400);
    assert.ok(post.contract?.matched.includes('tunnelUser 200'));
  });

  itKeptTheDocument(post);
  itKeptTheDocument(off);
});

type DocumentContext = TestContext & { served: OpenApiDocument; doc: OpenApiDocument };

/**
 * An app on a fresh database of `kind`, checked against its OpenAPI document, which is read
 * once: `served` as it is served, `doc` with each shared response written out where its `$ref` is.
 */
function useDocument(kind: TestStoreKind, overrides: Partial<Config>): DocumentContext {
  const ctx = useApp(kind, overrides, { contract: true }) as DocumentContext;
  before(async () => {
    ctx.served = body<OpenApiDocument>(await ctx.app.inject({ url: '/openapi.json', headers: HOST }));
    ctx.doc = withResponsesFollowed(ctx.served);
  });
  return ctx;
}

/**
 * Checks that every operation documents exactly the refusals of the guards in front of it:
 * 401 with keys, but for the public paths; 403 where a write key is needed (any operation
 * that can carry a write: a GET too, when its header may name one; every operation on the
 * webhooks' paths); 429 where the rate
 * limit counts. Each is a problem with the headers a client needs.
 */
function assertGuards(doc: OpenApiDocument, settings: { keys: boolean; rateLimit: boolean }) {
  for (const [path, item] of Object.entries(doc.paths)) {
    for (const method of METHODS.filter((m) => item[m])) {
      const operation = item[method] as Operation;
      const responses = operation.responses;
      const guarded = settings.keys && !PUBLIC_PATHS.includes(path);
      const expected = {
        '401': guarded,
        '403': guarded && (WRITE_KEY_PATHS.test(path) || carriesWrite(doc, path, method, operation)),
        '429': settings.rateLimit && !PROBE_PATHS.includes(path),
      };
      for (const [status, documented] of Object.entries(expected)) {
        const what = `${method} ${path} ${status}`;
        const response = responses[status];
        assert.equal(response !== undefined, documented, what);
        if (!response) continue;
        // HEAD answers the same problems without their bodies.
        const problem = method === 'head' ? undefined : '#/components/schemas/Problem';
        assert.equal(response.content?.['application/problem+json']?.schema.$ref, problem, what);
        assert.deepEqual(Object.keys(response.headers ?? {}), GUARD_HEADERS[status], what);
      }
    }
  }
}

/** Whether an operation can be a write: by its method, or by what its override header may name. */
function carriesWrite(doc: OpenApiDocument, path: string, method: string, operation: Operation): boolean {
  const carried = tunnelHeader(operation);
  if (carried) return doc.components.parameters[carried]?.schema.enum?.join() !== 'GET';
  // HEAD carries nothing; a GET, the writes sent directly on its path (GET may carry them by default).
  if (method === 'head') return false;
  const direct = METHODS.filter((m) => doc.paths[path]?.[m] && !tunnelHeader(doc.paths[path]?.[m] as Operation));
  return method !== 'get' || direct.some((m) => m !== 'get' && m !== 'head');
}

/** The component of the required override header of a tunnelled form; none for an operation sent directly. */
const tunnelHeader = (operation: Operation) =>
  operation.parameters
    ?.find((p) => p.$ref?.includes('HttpXHttpMethodFor'))
    ?.$ref?.split('/')
    .pop();

describe('the OpenAPI document with collection schemas (SCHEMAS)', () => {
  const ctx = useDocument(sqliteKind, { schemas: 'schemas/shop' });

  it("documents each collection's records, bodies and changes with its schema", async () => {
    const { doc, served } = ctx;
    const result = await new Validator().validate(structuredClone(served) as unknown as Record<string, unknown>);
    assert.equal(result.valid, true, JSON.stringify(result.errors));
    const { User, UserFields, UserPatch, Product } = doc.components.schemas as Record<string, JsonSchemaLike>;
    assert.deepEqual(Object.keys(User?.properties ?? {}), ['id', 'name', 'email', 'role', 'createdAt', 'updatedAt']);
    assert.deepEqual(User?.required, ['id', 'createdAt', 'updatedAt', 'name', 'email']);
    assert.deepEqual(UserFields?.required, ['name', 'email']);
    assert.equal(UserFields?.properties?.password?.writeOnly, true, 'a password is sent, never served');
    assert.equal(UserFields?.properties?.email?.format, 'email');
    assert.equal(UserPatch?.required, undefined, 'a merge patch needs no field');
    assert.deepEqual(UserPatch?.properties?.role?.anyOf?.[1], { type: 'null' }, 'null removes a field');
    assert.equal(UserPatch?.properties?.email?.anyOf, undefined, 'but not one the schema requires');
    assert.equal(Product?.properties?.price?.multipleOf, 0.01);
    for (const schema of Object.values(doc.components.schemas)) {
      assert.equal(schema.$id, undefined, 'no two components share an $id');
    }
    const create = doc.paths['/user/']?.post;
    assert.ok(create?.responses['422'], 'a schema violation is documented');
    assert.ok(create?.responses['409'], 'a unique conflict is documented');
    assert.ok(doc.paths['/user/{id}/']?.put?.responses['422']);
    // The declared fields filter too.
    const filters = doc.paths['/products/']?.get?.parameters?.filter((p) => p.style === 'deepObject');
    for (const name of ['id', 'name', 'price', 'sku'])
      assert.ok(
        filters?.some((p) => p.name === name),
        name,
      );
    // An account's password is never stored, so nothing filters by it: neither list nor feed offers it.
    for (const path of ['/users/', '/users/events/']) {
      const names = doc.paths[path]?.get?.parameters?.map((p) => p.name) ?? [];
      assert.ok(names.includes('email') && !names.includes('password'), `${path}: ${names.join(' ')}`);
    }
  });

  it('describes what the server really answers', async () => {
    const { app } = ctx;
    const post = (payload: object) => app.inject({ method: 'POST', url: '/user/', headers: JSON_HEADERS, payload });
    assert.equal((await post({ name: 'Ada', email: 'ada@example.com' })).statusCode, 201);
    assert.equal((await post({ name: 'Ada', email: 'not an address' })).statusCode, 422);
    assert.equal((await post({ name: 'Ada again', email: 'ADA@example.com' })).statusCode, 409);
    assert.equal((await app.inject({ url: '/users/?fields=name' })).statusCode, 200);
    assert.equal((await app.inject({ url: '/products/?price[gte]=1.5' })).statusCode, 200);
    for (const exchange of [
      'createUser 201',
      'createUser 422',
      'createUser 409',
      'listUsers 200',
      'listProducts 200',
    ]) {
      assert.ok(ctx.contract?.matched.includes(exchange), exchange);
    }
  });

  it('declares API keys and access tokens, and gives each operation the security it accepts', () => {
    const { doc } = ctx;
    assert.deepEqual(
      Object.entries(doc.components.securitySchemes).map(([name, s]) => [name, s.type, s.scheme, s.bearerFormat]),
      [
        ['apiKey', 'http', 'bearer', undefined],
        ['accessToken', 'http', 'bearer', 'JWT'],
        ['fileToken', 'apiKey', undefined, undefined],
      ],
    );
    assert.deepEqual(doc.security, [{}, { apiKey: [] }], 'the document-wide default is as before');
    const KEY = { apiKey: [] };
    const TOKEN = { accessToken: [] };
    // Public paths need nothing; the account routes are how a caller gets a credential at all.
    for (const path of [...PUBLIC_PATHS, '/users/auth/', '/users/auth/refresh/']) {
      for (const method of METHODS.filter((m) => doc.paths[path]?.[m])) {
        assert.deepEqual(doc.paths[path]?.[method]?.security, [], `${method} ${path}`);
      }
    }
    assert.equal(doc.paths['/metrics']?.get?.security, undefined, 'no rules: the document-wide default');
    // Each ruled operation: a key, a token, and no credential where the rule can hold without one.
    // Whether the rule can hold without a credential (the description says), beside the security.
    const expected: [string, string, Record<string, string[]>[], string, boolean][] = [
      ['get', '/products/', [KEY, TOKEN, {}], 'true', true],
      ['get', '/products/events/', [KEY, TOKEN, {}], 'true', true],
      ['put', '/product/{id}/', [KEY, TOKEN], "auth.role == 'staff'", false],
      // The list as HEAD sends it: a caller without a credential is answered, with nothing listed.
      ['head', '/users/', [KEY, TOKEN, {}], "id == auth.id || auth.role == 'staff'", false],
      ['post', '/user/', [KEY, TOKEN, {}], "role == null || auth.role == 'staff'", true],
      ['patch', '/user/{id}/', [KEY, TOKEN], "(id == auth.id && body.role == null) || auth.role == 'staff'", false],
      ['delete', '/user/{id}/', [KEY, TOKEN], "id == auth.id || auth.role == 'staff'", false],
      // An order always has its userId (the schema requires an integer): no one without a token passes,
      // but the list still answers such a caller (an empty page), so it admits one.
      ['get', '/orders/', [KEY, TOKEN, {}], "userId == auth.id || auth.role == 'staff'", false],
      ['post', '/order/', [KEY, TOKEN], "auth.collection == 'users'", false],
    ];
    for (const [method, path, security, rule, holds] of expected) {
      const operation = doc.paths[path]?.[method];
      assert.deepEqual(operation?.security, security, `${method} ${path}`);
      assert.ok(operation?.description?.includes(`\`${rule}\``), `${method} ${path} names its rule`);
      assert.match(operation?.description ?? '', holds ? /can hold for a caller with no/ : /never holds/);
    }
    // A tunnelled form takes whatever the operations it carries take.
    assert.deepEqual(doc.paths['/users/']?.get?.security, [KEY, TOKEN, {}]);
    assert.deepEqual(doc.paths['/product/{id}/']?.post?.security, [KEY, TOKEN, {}]);
    assert.deepEqual(doc.paths['/user/{id}/']?.post?.security, [KEY, TOKEN]);
    // A feed also takes either credential in its query.
    const token = doc.paths['/users/events/']?.get?.parameters?.find((p) => p.name === 'access_token') as {
      description?: string;
    };
    assert.match(token?.description ?? '', /API key or an account's access token/);
  });

  it('documents 401 wherever a credential is checked, and 403 on the writes the rules may refuse', () => {
    const { doc } = ctx;
    for (const [path, item] of Object.entries(doc.paths)) {
      for (const method of METHODS.filter((m) => item[m])) {
        const operation = item[method] as Operation;
        // The account routes answer 401 themselves (a wrong password); the guards check no credential there.
        if (path.includes('/auth/')) continue;
        const open = PUBLIC_PATHS.includes(path);
        assert.equal(operation.responses['401'] !== undefined, !open, `${method} ${path} 401`);
        if (open) continue;
        const problems = operation.responses['401']?.content?.['application/problem+json']?.schema.$ref;
        assert.equal(problems, method === 'head' ? undefined : '#/components/schemas/Problem');
        const ruledWrite = operation.security !== undefined && carriesWrite(doc, path, method, operation);
        assert.equal(operation.responses['403'] !== undefined, ruledWrite, `${method} ${path} 403`);
      }
    }
    const described = (operation: Operation | undefined, status: string) =>
      (operation?.responses[status] as { description?: string } | undefined)?.description ?? '';
    assert.match(described(doc.paths['/order/{id}/']?.delete, '403'), /\/problems\/forbidden/);
    assert.match(described(doc.paths['/users/']?.get, '401'), /\/problems\/unauthorized/);
  });

  it('documents signing in, renewing the tokens and signing out', () => {
    const { doc } = ctx;
    const signIn = doc.paths['/users/auth/']?.post;
    const refresh = doc.paths['/users/auth/refresh/']?.post;
    const signOut = doc.paths['/users/auth/']?.delete;
    assert.deepEqual(
      [signIn, refresh, signOut].map((operation) => [operation?.operationId, operation?.tags]),
      [
        ['signInUser', ['users']],
        ['refreshUserToken', ['users']],
        ['signOutUser', ['users']],
      ],
    );
    type Body = { anyOf?: Body[]; required?: string[]; properties?: Record<string, { $ref?: string }> };
    const sent = (operation: Operation | undefined) =>
      operation?.requestBody?.content['application/json']?.schema as Body | undefined;
    assert.deepEqual(sent(refresh)?.required, ['refreshToken']);
    assert.deepEqual(sent(signOut)?.required, ['refreshToken']);
    // POST carries DELETE (sign out) too: its body is either form.
    assert.deepEqual(
      sent(signIn)?.anyOf?.map((form) => form.required),
      [['email', 'password'], ['refreshToken']],
    );
    for (const operation of [signIn, refresh]) {
      const schema = operation?.responses['200']?.content?.['application/json']?.schema as Body;
      // POST /users/auth/ carries GET (who am I) too: its answer is either form.
      const answer = schema.anyOf?.find((form) => form.required) ?? schema;
      assert.deepEqual(answer.required, ['token', 'refreshToken', 'expiresIn', 'record']);
      assert.equal(answer.properties?.record?.$ref, '#/components/schemas/User');
    }
    assert.equal(signOut?.responses['204']?.content, undefined);
    const kinds = (operation: Operation | undefined, status: string) =>
      [
        ...((operation?.responses[status] as { description?: string })?.description ?? '').matchAll(
          /\/problems\/([a-z-]+)/g,
        ),
      ].map((m) => m[1]);
    // With GET (who am I, tunnelled in a POST): a request without a token.
    assert.deepEqual(kinds(signIn, '401'), ['invalid-credentials', 'unauthorized']);
    assert.deepEqual(kinds(signIn, '429'), ['too-many-requests', 'too-many-sign-ins']);
    assert.ok(signIn?.responses['429']?.headers?.['Retry-After']);
    assert.ok(kinds(signIn, '400').includes('invalid-record'));
    assert.deepEqual(kinds(refresh, '401'), ['invalid-credentials']);
    assert.ok(!kinds(refresh, '429').includes('too-many-sign-ins'), 'a renewal hashes no password');
    // A password is hashed within caps on every create or change of an account: 429 there too.
    assert.ok(kinds(doc.paths['/user/']?.post, '429').includes('too-many-sign-ins'));
    // Tunnelled: POST may carry GET (who am I) or DELETE (its own operation widened), GET either other.
    assert.match(signIn?.description ?? '', /naming GET or DELETE, this request is getUserMe, signOutUser/);
    assert.deepEqual(
      Object.keys(signIn?.responses ?? {}).filter((s) => s < '300'),
      ['200', '204'],
    );
    assert.equal(doc.paths['/users/auth/']?.get?.operationId, 'getUserMe');
    assert.equal(doc.paths['/users/auth/refresh/']?.get?.operationId, 'refreshUserTokenTunnelled');
    assert.match(doc.paths['/users/auth/']?.get?.description ?? '', /signInUser, signOutUser/);
  });

  it('shows a password in no example, and sends it only write-only', () => {
    const { doc } = ctx;
    const found: string[] = [];
    const walk = (value: unknown, at: string, inExample: boolean): void => {
      if (typeof value !== 'object' || value === null) return;
      // An array's entries are its items, by index: none is named password.
      for (const [key, inner] of Object.entries(value)) {
        if (inExample && key === 'password') found.push(at);
        walk(inner, `${at}/${key}`, inExample || key === 'examples' || key === 'example');
      }
    };
    walk(doc, '#', false);
    assert.deepEqual(found, []);
    const { User, UserFields } = doc.components.schemas as Record<string, JsonSchemaLike & { examples?: object[] }>;
    assert.equal(User?.properties?.password, undefined, 'a record as served has no password');
    assert.ok(UserFields?.examples?.length, 'the examples are still there, without their passwords');
  });

  itKeptTheDocument(ctx);
});

for (const kind of STORE_KINDS) {
  describe(`the OpenAPI document of the shop's accounts, against real exchanges (${kind.name})`, () => {
    // Cheap hashes (the cost is tested apart), and a third failed sign-in refused.
    const settings = { schemas: 'schemas/shop', passwordHashCost: { logN: 10, r: 8, p: 1 }, signInMaxFailures: 3 };
    const ctx = useDocument(kind, withKeys(settings));
    const PASSWORD = 'correct horse battery';

    it('signs up, signs in, renews, lists and signs out as the document says', async () => {
      const { app } = ctx;
      const as = (token: string | undefined) => (token ? { authorization: `Bearer ${token}` } : {});
      const send = (method: InjectOptions['method'], url: string, payload?: object, token?: string) =>
        app.inject({ method, url, headers: { ...JSON_HEADERS, ...as(token) }, ...(payload && { payload }) });
      const product = await injectAs(app, 'write', {
        method: 'POST',
        url: '/product/',
        headers: JSON_HEADERS,
        payload: { name: 'Teapot', price: 19.5 },
      });
      assert.equal(product.statusCode, 201);
      const signUp = await send('POST', '/user/', { name: 'Ada', email: 'ada@example.com', password: PASSWORD });
      assert.equal(signUp.statusCode, 201, signUp.body);
      assert.equal(body(signUp).password, undefined);
      assert.equal(
        (await send('POST', '/users/auth/', { email: 'ada@example.com', password: 'wrong' })).statusCode,
        401,
      );
      assert.equal((await send('POST', '/users/auth/', { email: 'ada@example.com' })).statusCode, 400);
      const signedIn = await send('POST', '/users/auth/', { email: 'ADA@example.com', password: PASSWORD });
      assert.equal(signedIn.statusCode, 200, signedIn.body);
      const first = body<{ token: string; refreshToken: string; record: { id: number } }>(signedIn);

      // As the account: its own record only, the products anyone sees, an order of its own.
      const users = await send('GET', '/users/', undefined, first.token);
      assert.deepEqual(
        body<{ id: number }[]>(users).map((user) => user.id),
        [first.record.id],
      );
      assert.equal((await send('GET', '/products/')).statusCode, 200);
      const feed = await app.inject({ method: 'HEAD', url: `/users/events/?access_token=${first.token}` });
      assert.equal(feed.statusCode, 200);
      const order = { items: [{ productId: body(product).id, quantity: 1 }], status: 'placed' };
      assert.equal((await send('POST', '/order/', order, first.token)).statusCode, 201);
      assert.equal((await send('POST', '/order/', order)).statusCode, 403, 'no one without an account orders');
      const teapot = `/product/${body(product).id}/`;
      assert.equal((await send('PATCH', teapot, { price: 1 }, first.token)).statusCode, 403, 'staff only');
      assert.equal((await send('GET', '/users/', undefined, 'x.y.z')).statusCode, 401);

      // Renewed once; the used refresh token then fails, and signing out ends the new one.
      const renewed = await send('POST', '/users/auth/refresh/', { refreshToken: first.refreshToken });
      assert.equal(renewed.statusCode, 200, renewed.body);
      const second = body<{ refreshToken: string }>(renewed);
      const again = await send('POST', '/users/auth/', { email: 'ada@example.com', password: PASSWORD });
      const third = body<{ refreshToken: string }>(again);
      assert.equal((await send('DELETE', '/users/auth/', { refreshToken: second.refreshToken })).statusCode, 204);
      assert.equal((await send('POST', '/users/auth/refresh/', { refreshToken: second.refreshToken })).statusCode, 401);
      const tunnelled = await app.inject({
        method: 'POST',
        url: '/users/auth/',
        headers: { ...JSON_HEADERS, 'X-HTTP-Method': 'DELETE' },
        payload: { refreshToken: third.refreshToken },
      });
      assert.equal(tunnelled.statusCode, 204);

      // Two more failures make three from this address: the next sign-in waits.
      for (const password of ['wrong again', 'still wrong']) {
        assert.equal((await send('POST', '/users/auth/', { email: 'ada@example.com', password })).statusCode, 401);
      }
      const held = await send('POST', '/users/auth/', { email: 'ada@example.com', password: PASSWORD });
      assert.equal(held.statusCode, 429);
      assert.ok(Number(held.headers['retry-after']) > 0);

      const matched = ctx.contract?.matched ?? [];
      for (const exchange of [
        'createProduct 201',
        'createUser 201',
        'signInUser 200',
        'signInUser 400',
        'signInUser 401',
        'signInUser 429',
        'listUsers 200',
        'listProducts 200',
        'followUserChangesHead 200',
        'createOrder 201',
        'createOrder 403',
        'patchProduct 403',
        'listUsers 401',
        'refreshUserToken 200',
        'refreshUserToken 401',
        'signOutUser 204',
        'signInUser 204',
      ]) {
        assert.ok(matched.includes(exchange), `${exchange} was checked`);
      }
    });

    itKeptTheDocument(ctx);
  });
}

describe('the OpenAPI document of an operation left to API keys', () => {
  // The shop, but its products' rules say nothing of deleting: that is for keys alone.
  const folder = mkdtempSync(join(tmpdir(), 'restock-keys-only-'));
  for (const name of readdirSync('schemas/shop')) {
    const schema = JSON.parse(readFileSync(join('schemas/shop', name), 'utf8')) as { 'x-rules'?: object };
    if (name.startsWith('products')) {
      const { delete: _delete, ...rules } = schema['x-rules'] as Record<string, string>;
      schema['x-rules'] = rules;
    }
    writeFileSync(join(folder, name), JSON.stringify(schema));
  }
  after(() => rmSync(folder, { recursive: true, force: true }));
  const ctx = useDocument(sqliteKind, withKeys({ schemas: folder, passwordHashCost: { logN: 10, r: 8, p: 1 } }));

  it('takes an API key alone, and refuses an account with 403', async () => {
    const remove = ctx.doc.paths['/product/{id}/']?.delete;
    assert.deepEqual(remove?.security, [{ apiKey: [] }]);
    assert.match(remove?.description ?? '', /Only an API key may call this: .* no `delete` rule/);
    assert.ok(remove?.responses['401'] && remove.responses['403']);
    assert.ok(ctx.doc.components.securitySchemes.accessToken, 'the other operations still take tokens');
    const { app } = ctx;
    const made = await app.inject({
      method: 'POST',
      url: '/user/',
      headers: JSON_HEADERS,
      payload: { name: 'Bob', email: 'bob@example.com', password: 'tr0ub4dor&3 staple' },
    });
    assert.equal(made.statusCode, 201);
    const signedIn = await app.inject({
      method: 'POST',
      url: '/users/auth/',
      headers: JSON_HEADERS,
      payload: { email: 'bob@example.com', password: 'tr0ub4dor&3 staple' },
    });
    const { token } = body<{ token: string }>(signedIn);
    const product = await injectAs(app, 'write', {
      method: 'POST',
      url: '/product/',
      headers: JSON_HEADERS,
      payload: { name: 'Cup', price: 4 },
    });
    const url = `/product/${body(product).id}/`;
    const refused = await app.inject({ method: 'DELETE', url, headers: { authorization: `Bearer ${token}` } });
    assert.equal(refused.statusCode, 403);
    assert.equal((await app.inject({ method: 'DELETE', url })).statusCode, 401);
    assert.equal((await injectAs(app, 'write', { method: 'DELETE', url })).statusCode, 200);
    for (const exchange of ['deleteProduct 403', 'deleteProduct 401', 'deleteProduct 200']) {
      assert.ok(ctx.contract?.matched.includes(exchange), exchange);
    }
  });

  itKeptTheDocument(ctx);
});

describe('the contract checker', () => {
  it('finds an answer that breaks the document, and a request accepted that the document refuses', async () => {
    const app = await buildApp({
      config: defaultConfig({ databaseUrl: 'sqlite::memory:', maxEventLoopDelay: 0 }),
      logStream: false,
    });
    try {
      // Before the checker's own hook, so that it sees what this one makes of the answer.
      app.addHook('onSend', async (request, reply, payload) => {
        if (request.headers['x-break'] === 'status') reply.code(200);
        return request.headers['x-break'] === 'body' ? '{"id":"seven"}' : payload;
      });
      const contract = checkAgainstDocument(app);
      await app.ready();
      await contract.load();
      const made = await create(app, 'user', { a: 1 });
      await app.inject({ url: `/user/${made.id}/`, headers: { 'x-break': 'body' } });
      await app.inject({ url: '/users/?limit=0', headers: { 'x-break': 'status' } });
      await app.inject({ url: '/users/?email[near]=a', headers: { 'x-break': 'status' } });
      await app.inject({ method: 'PUT', url: '/users/', headers: { 'x-break': 'status' } });
      assert.equal(contract.violations.length, 4, contract.violations.join('\n'));
      assert.match(contract.violations[0] ?? '', /readUser.*\/id must be integer/);
      assert.match(contract.violations[1] ?? '', /accepted a request the document refuses: query limit/);
      assert.match(contract.violations[2] ?? '', /accepted a request the document refuses: query email/);
      assert.match(contract.violations[3] ?? '', /the document has no such operation/);
    } finally {
      await app.close();
    }
  });
});

interface JsonSchemaLike {
  $id?: string;
  required?: string[];
  format?: string;
  multipleOf?: number;
  writeOnly?: boolean;
  anyOf?: JsonSchemaLike[];
  properties?: Record<string, JsonSchemaLike>;
}
