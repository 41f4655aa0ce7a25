/**
 * SPEC §11: the OpenAPI 3.1 document, generated from the route schemas, checked by an
 * OpenAPI validator, against the routes the app really registers, and against real
 * responses; and the reference page that renders it.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Validator } from '@seriousme/openapi-schema-validator';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import type { FastifyInstance, LightMyRequestResponse, RouteOptions } from 'fastify';
import { parse as parseYaml } from 'yaml';
import { type Config, defaultConfig } from '../src/config/index.js';
import { DEFAULT_RESOURCES } from '../src/core/resources.js';
import { buildApp } from '../src/http/app.js';
import { body, create, JSON_HEADERS, type TestContext, useApp } from './helpers/app.js';
import { injectAs, withKeys } from './helpers/keys.js';
import { STORE_KINDS, sqliteKind, type TestDatabase, type TestStoreKind } from './helpers/stores.js';

const METHODS = ['get', 'put', 'post', 'delete', 'patch'] as const;

const OVERRIDE_COMPONENTS = [
  ['HTTP-X-HTTP-METHOD', 'HttpXHttpMethod'],
  ['X-HTTP-Method', 'XHttpMethod'],
  ['X-HTTP-Method-Override', 'XHttpMethodOverride'],
] as const;

interface OpenApiDocument {
  openapi: string;
  paths: Record<string, Record<string, Operation>>;
  components: {
    schemas: Record<string, Record<string, unknown>>;
    parameters: Record<string, { name: string; schema: { enum?: string[] } }>;
  };
}
interface Operation {
  operationId?: string;
  tags?: string[];
  parameters?: { in?: string; name?: string; $ref?: string }[];
  requestBody?: { content: Record<string, { schema: unknown }> };
  responses: Record<
    string,
    { content?: Record<string, { schema: { $ref?: string } }>; headers?: Record<string, unknown> }
  >;
}

/** The paths anyone may call when keys are configured, and those the rate limit leaves alone. */
const PUBLIC_PATHS = ['/', '/healthz', '/readyz', '/openapi.json', '/openapi.yaml', '/problems/{kind}'];
const PROBE_PATHS = ['/healthz', '/readyz'];
/** The headers each refusal of the guards documents (and sends). */
const GUARD_HEADERS: Record<string, string[]> = {
  '401': ['WWW-Authenticate'],
  '403': ['WWW-Authenticate'],
  '429': ['Retry-After', 'RateLimit-Limit', 'RateLimit-Remaining', 'RateLimit-Reset'],
};

/** `/user/:id/` as OpenAPI writes it: `/user/{id}/`. */
const openApiPath = (url: string) => url.replace(/:(\w+)/g, '{$1}');

for (const kind of STORE_KINDS) {
  describe(`the OpenAPI document (${kind.name})`, () => {
    let db: TestDatabase;
    let app: FastifyInstance;
    let doc: OpenApiDocument;
    const routes: RouteOptions[] = [];
    before(async () => {
      db = await kind.create();
      app = await buildApp({
        config: defaultConfig({ databaseUrl: db.url }),
        logStream: false,
        onRoute: (route) => routes.push(route),
      });
      const response = await app.inject({ url: '/openapi.json' });
      assert.equal(response.statusCode, 200);
      assert.equal(response.headers['content-type'], 'application/json; charset=utf-8');
      doc = body<OpenApiDocument>(response);
    });
    after(async () => {
      await app?.close();
      await db?.drop();
    });

    it('is a valid OpenAPI 3.1 document', async () => {
      assert.equal(doc.openapi, '3.1.0');
      const validator = new Validator();
      const result = await validator.validate(structuredClone(doc) as unknown as Record<string, unknown>);
      assert.equal(result.valid, true, JSON.stringify(result.errors, null, 2));
      const ids = METHODS.flatMap((m) => Object.values(doc.paths).flatMap((p) => p[m]?.operationId ?? []));
      assert.equal(new Set(ids).size, ids.length, 'operationIds are unique');
    });

    it('holds every registered route that is not hidden, and no alias', () => {
      const visible = routes.filter((r) => !(r.schema as { hide?: boolean } | undefined)?.hide);
      const all = visible.flatMap((r) => [r.method].flat().map((m) => `${m.toLowerCase()} ${openApiPath(r.url)}`));
      // Fastify adds a HEAD beside every GET; the document shows the GET alone.
      const expected = all.filter((route) => !route.startsWith('head '));
      for (const head of all.filter((route) => route.startsWith('head '))) {
        assert.ok(expected.includes(head.replace('head ', 'get ')), head);
      }
      assert.ok(expected.length >= DEFAULT_RESOURCES.length * 6 + 7, `only ${expected.length} visible routes`);
      const documented = Object.entries(doc.paths).flatMap(([path, item]) =>
        METHODS.filter((m) => item[m]).map((m) => `${m} ${path}`),
      );
      assert.deepEqual(documented.sort(), [...new Set(expected)].sort());
      for (const { plural, singular } of DEFAULT_RESOURCES) {
        for (const path of [`/${plural}/`, `/${singular}/`, `/${singular}/{id}/`]) assert.ok(doc.paths[path], path);
        assert.equal(doc.paths[`/${plural}/{id}/`], undefined, 'the plural item alias is hidden');
        assert.equal(doc.paths[`/${plural}/`]?.post, undefined, 'POST on the plural alias is hidden');
      }
      for (const path of ['/', '/healthz', '/readyz', '/metrics', '/openapi.json', '/problems/{kind}']) {
        assert.ok(doc.paths[path]?.get, path);
      }
      assert.ok(!Object.keys(doc.paths).some((p) => p.startsWith('/docs') || p.startsWith('/console')));
    });

    it('documents each operation: parameters, bodies, success and every error as a problem', () => {
      for (const resource of DEFAULT_RESOURCES) {
        const Name = resource.singular.charAt(0).toUpperCase() + resource.singular.slice(1);
        const item = doc.paths[`/${resource.singular}/{id}/`] ?? {};
        const operations: [string, Operation | undefined, string[]][] = [
          ['list', doc.paths[`/${resource.plural}/`]?.get, ['200', '400', '429', '500', '503']],
          [
            'create',
            doc.paths[`/${resource.singular}/`]?.post,
            ['201', '400', '409', '410', '413', '415', '422', '429', '500', '503', '507'],
          ],
          ['read', item.get, ['200', '304', '400', '404', '429', '500', '503']],
          ['modify', item.put, ['200', '400', '404', '412', '413', '415', '429', '500', '503']],
          ['patch', item.patch, ['200', '400', '404', '412', '413', '415', '429', '500', '503']],
          ['delete', item.delete, ['200', '204', '400', '404', '412', '429', '500', '503']],
        ];
        for (const [name, operation, statuses] of operations) {
          assert.ok(operation, `${resource.plural} ${name}`);
          assert.deepEqual(Object.keys(operation.responses).sort(), statuses.sort(), `${resource.plural} ${name}`);
          assert.deepEqual(operation.tags, [resource.plural]);
          // The override headers are referenced, once each, never written out inline.
          const parameters = operation.parameters ?? [];
          const inline = parameters.filter((p) => p.in === 'header').map((p) => p.name?.toLowerCase());
          const refs = parameters.map((p) => p.$ref).filter(Boolean);
          for (const [header, component] of OVERRIDE_COMPONENTS) {
            assert.ok(!inline.includes(header.toLowerCase()), `${resource.plural} ${name} inlines ${header}`);
            assert.equal(
              refs.filter((r) => r === `#/components/parameters/${component}`).length,
              1,
              `${resource.plural} ${name} references ${header}`,
            );
            assert.equal(doc.components.parameters[component]?.name, header);
            assert.deepEqual(doc.components.parameters[component]?.schema.enum, [
              'GET',
              'POST',
              'PUT',
              'PATCH',
              'DELETE',
            ]);
          }
          for (const [status, response] of Object.entries(operation.responses)) {
            if (Number(status) < 400) continue;
            assert.equal(
              response.content?.['application/problem+json']?.schema.$ref,
              '#/components/schemas/Problem',
              `${resource.plural} ${name} ${status}`,
            );
          }
        }
        const ref = (schema: { $ref?: string } | undefined) => schema?.$ref?.replace('#/components/schemas/', '');
        const created = doc.paths[`/${resource.singular}/`]?.post;
        // One record, or an array of them (a bulk create): each form by its component.
        type OneOrMany = { anyOf?: { $ref?: string; items?: { $ref?: string }; maxItems?: number }[] };
        const answered = created?.responses['201']?.content?.['application/json']?.schema as OneOrMany;
        assert.deepEqual(
          answered.anyOf?.map((form) => ref(form) ?? `${ref(form.items)}[]`),
          [Name, `${Name}[]`],
        );
        const sent = created?.requestBody?.content['application/json']?.schema as OneOrMany;
        assert.deepEqual(
          sent.anyOf?.map((form) => ref(form) ?? `${ref(form.items)}[] of at most ${form.maxItems}`),
          [`${Name}Fields`, `${Name}Fields[] of at most 1000`],
        );
        assert.equal(
          ref(item.patch?.requestBody?.content['application/merge-patch+json']?.schema as { $ref?: string }),
          `${Name}Patch`,
        );
        assert.ok(item.get?.parameters?.some((p) => p.in === 'path' && p.name === 'id'));
        assert.ok(item.get?.parameters?.some((p) => p.in === 'header' && p.name === 'If-None-Match'));
        assert.ok(item.delete?.parameters?.some((p) => p.in === 'header' && p.name === 'Prefer'));
        const list = doc.paths[`/${resource.plural}/`]?.get;
        const query = list?.parameters?.filter((p) => p.in === 'query').map((p) => p.name) ?? [];
        for (const name of ['limit', 'cursor', 'sort', 'q']) assert.ok(query.includes(name), `list documents ${name}`);
        assert.ok(doc.components.schemas[Name]?.required, `${Name} requires the system fields`);
      }
    });

    it('documents 429 wherever the rate limit (on by default) counts, and no 401 or 403 without keys', () => {
      assertGuards(doc, { keys: false, rateLimit: true });
    });

    it('describes what the server really answers', async () => {
      const check = conformance(doc);
      const item = doc.paths['/user/{id}/'];
      const made = await create(app, 'user', { name: 'Ada', nested: { a: [1] } });
      check(
        await app.inject({ method: 'POST', url: '/user/', headers: JSON_HEADERS, payload: { x: 1 } }),
        doc.paths['/user/']?.post,
        'create',
      );
      check(await app.inject({ url: '/users/?limit=1' }), doc.paths['/users/']?.get, 'list');
      check(await app.inject({ url: '/users/?limit=0' }), doc.paths['/users/']?.get, 'bad list');
      check(await app.inject({ url: `/user/${made.id}/` }), item?.get, 'read');
      check(await app.inject({ url: '/user/999999/' }), item?.get, 'read missing');
      check(
        await app.inject({ url: `/user/${made.id}/`, headers: { 'if-none-match': `"${made.id}-1"` } }),
        item?.get,
        'not modified',
      );
      check(
        await app.inject({ method: 'PUT', url: `/user/${made.id}/`, headers: JSON_HEADERS, payload: '[1]' }),
        item?.put,
        'bad body',
      );
      check(
        await app.inject({
          method: 'POST',
          url: `/user/${made.id}/`,
          headers: { ...JSON_HEADERS, 'HTTP-X-HTTP-METHOD': 'PUT' },
          payload: { b: 2 },
        }),
        item?.put,
        'tunnelled modify',
      );
      check(
        await app.inject({ method: 'DELETE', url: `/user/${made.id}/`, headers: { prefer: 'return=minimal' } }),
        item?.delete,
        'delete',
      );
      check(await app.inject({ url: '/healthz' }), doc.paths['/healthz']?.get, 'health');
      check(await app.inject({ url: '/readyz' }), doc.paths['/readyz']?.get, 'ready');
      check(await app.inject({ url: '/problems/not-found' }), doc.paths['/problems/{kind}']?.get, 'problem type');
      check(await app.inject({ url: '/' }), doc.paths['/']?.get, 'index');
    });

    it('is served as YAML too, the same document', async () => {
      const response = await app.inject({ url: '/openapi.yaml' });
      assert.equal(response.statusCode, 200);
      assert.equal(response.headers['content-type'], 'application/yaml; charset=utf-8');
      assert.deepEqual(parseYaml(response.body), doc);
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
  });
}

for (const kind of STORE_KINDS) {
  describe(`the OpenAPI document with API keys and a small request budget (${kind.name})`, () => {
    const ctx = useDocument(kind, withKeys({ rateLimitMax: 5 }));

    it('is still a valid document, with 401 and 429 on guarded operations, and 403 on writes', async () => {
      const result = await new Validator().validate(structuredClone(ctx.doc) as unknown as Record<string, unknown>);
      assert.equal(result.valid, true, JSON.stringify(result.errors));
      assertGuards(ctx.doc, { keys: true, rateLimit: true });
    });

    it('describes the refusals the server really sends, headers included', async () => {
      const { app, doc } = ctx;
      const check = conformance(doc);
      const item = doc.paths['/user/{id}/'];
      check(await injectAs(app, 'none', { url: '/users/' }), doc.paths['/users/']?.get, 'no key');
      check(await injectAs(app, 'unknown', { url: '/metrics' }), doc.paths['/metrics']?.get, 'unknown key');
      const write = { method: 'POST', url: '/user/', headers: JSON_HEADERS, payload: { a: 1 } } as const;
      check(await injectAs(app, 'read', write), doc.paths['/user/']?.post, 'read key writes');
      const tunnelled = { method: 'POST', url: '/user/1/', headers: { 'x-http-method': 'DELETE' } } as const;
      check(await injectAs(app, 'read', tunnelled), item?.delete, 'read key deletes, tunnelled');
      // The write key's budget is 5 requests a window: the sixth read is over it.
      const reads = [];
      for (let i = 0; i < 6; i++) reads.push(await injectAs(app, 'write', { url: '/user/1/' }));
      for (const read of reads) check(read, item?.get, `read ${reads.indexOf(read) + 1} of 6`);
      assert.equal(reads.at(-1)?.statusCode, 429);
    });
  });

  describe(`the OpenAPI document with the rate limit off (${kind.name})`, () => {
    const ctx = useApp(kind, { rateLimitMax: 0 });

    it('documents no 429, nor 401 or 403 without keys', async () => {
      assertGuards(body<OpenApiDocument>(await ctx.app.inject({ url: '/openapi.json' })), {
        keys: false,
        rateLimit: false,
      });
    });
  });
}

/** An app on a fresh database of `kind` (see useApp), and its OpenAPI document, read once. */
function useDocument(kind: TestStoreKind, overrides: Partial<Config>): TestContext & { doc: OpenApiDocument } {
  const ctx = useApp(kind, overrides) as TestContext & { doc: OpenApiDocument };
  before(async () => {
    ctx.doc = body<OpenApiDocument>(await ctx.app.inject({ url: '/openapi.json' }));
  });
  return ctx;
}

/**
 * Checks that every operation documents exactly the refusals of the guards in front of it:
 * 401 with keys, but for the public paths; 403 where a write key is needed; 429 where the
 * rate limit counts. Each is a problem with the headers a client needs.
 */
function assertGuards(doc: OpenApiDocument, settings: { keys: boolean; rateLimit: boolean }) {
  for (const [path, item] of Object.entries(doc.paths)) {
    for (const method of METHODS.filter((m) => item[m])) {
      const responses = item[method]?.responses ?? {};
      const guarded = settings.keys && !PUBLIC_PATHS.includes(path);
      const expected = {
        '401': guarded,
        '403': guarded && method !== 'get',
        '429': settings.rateLimit && !PROBE_PATHS.includes(path),
      };
      for (const [status, documented] of Object.entries(expected)) {
        const what = `${method} ${path} ${status}`;
        const response = responses[status];
        assert.equal(response !== undefined, documented, what);
        if (!response) continue;
        assert.equal(response.content?.['application/problem+json']?.schema.$ref, '#/components/schemas/Problem', what);
        assert.deepEqual(Object.keys(response.headers ?? {}), GUARD_HEADERS[status], what);
      }
    }
  }
}

describe('the OpenAPI document with collection schemas (SCHEMAS)', () => {
  const ctx = useDocument(sqliteKind, { schemas: 'schemas/store' });

  it("documents each collection's records, bodies and changes with its schema", async () => {
    const { doc } = ctx;
    const result = await new Validator().validate(structuredClone(doc) as unknown as Record<string, unknown>);
    assert.equal(result.valid, true, JSON.stringify(result.errors));
    const { User, UserFields, UserPatch, Product } = doc.components.schemas as Record<string, JsonSchemaLike>;
    assert.deepEqual(Object.keys(User?.properties ?? {}), ['id', 'name', 'email', 'createdAt', 'updatedAt']);
    assert.deepEqual(User?.required, ['id', 'createdAt', 'updatedAt', 'name', 'email']);
    assert.deepEqual(UserFields?.required, ['name', 'email']);
    assert.equal(UserFields?.properties?.email?.format, 'email');
    assert.equal(UserPatch?.required, undefined, 'a merge patch needs no field');
    assert.deepEqual(UserPatch?.properties?.email?.anyOf?.[1], { type: 'null' }, 'null removes a field');
    assert.equal(Product?.properties?.price?.multipleOf, 0.01);
    for (const schema of Object.values(doc.components.schemas)) {
      assert.equal(schema.$id, undefined, 'no two components share an $id');
    }
    const create = doc.paths['/user/']?.post;
    assert.ok(create?.responses['422'], 'a schema violation is documented');
    assert.ok(create?.responses['409'], 'a unique conflict is documented');
    assert.ok(doc.paths['/user/{id}/']?.put?.responses['422']);
  });

  it('describes what the server really answers', async () => {
    const { app, doc } = ctx;
    const check = conformance(doc);
    const create = doc.paths['/user/']?.post;
    const post = (payload: object) => app.inject({ method: 'POST', url: '/user/', headers: JSON_HEADERS, payload });
    check(await post({ name: 'Ada', email: 'ada@example.com' }), create, 'valid create');
    check(await post({ name: 'Ada', email: 'not an address' }), create, 'schema violation');
    check(await post({ name: 'Ada again', email: 'ADA@example.com' }), create, 'unique conflict');
    check(await app.inject({ url: '/users/' }), doc.paths['/users/']?.get, 'list');
  });
});

interface JsonSchemaLike {
  $id?: string;
  required?: string[];
  format?: string;
  multipleOf?: number;
  anyOf?: JsonSchemaLike[];
  properties?: Record<string, JsonSchemaLike>;
}

/**
 * Checks that a response is one `operation` documents: its status, and its body against
 * the documented schema (validated with Ajv's 2020-12 dialect, that of OpenAPI 3.1).
 */
function conformance(doc: OpenApiDocument) {
  const ajv = new Ajv2020({ strict: false, allErrors: true });
  addFormats.default(ajv);
  return (response: LightMyRequestResponse, operation: Operation | undefined, what: string) => {
    const documented = operation?.responses[String(response.statusCode)];
    assert.ok(documented, `${what}: status ${response.statusCode} is documented`);
    if (response.statusCode >= 400) {
      for (const name of Object.keys(documented.headers ?? {})) {
        assert.ok(response.headers[name.toLowerCase()] !== undefined, `${what}: ${name} is sent`);
      }
    }
    const type = String(response.headers['content-type']).split(';')[0] as string;
    const schema = documented.content?.[type]?.schema;
    if (!schema) {
      assert.equal(response.body, '', `${what}: an undocumented body`);
      return;
    }
    // The components ride along, so that `#/components/schemas/…` resolves in the same root.
    const validate = ajv.compile({ ...schema, components: doc.components });
    assert.ok(validate(JSON.parse(response.body)), `${what}: ${JSON.stringify(validate.errors)} ${response.body}`);
  };
}
