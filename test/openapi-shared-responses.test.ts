/**
 * The problem responses the document shares (src/api/openapi/shared-responses.ts): each
 * distinct one is written once under `components/responses`, every `$ref` to one resolves,
 * none is written twice, each is named after the kinds it stands for, and following the refs
 * gives back the document as generated: every operation still documents each problem kind
 * it did, with the same words, headers and body.
 */
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { parse as parseYaml } from 'yaml';
import { problemDescription, problemKindsIn } from '../src/api/openapi/responses.js';
import { SHARED_RESPONSES, sharedResponseName, shareProblemResponses } from '../src/api/openapi/shared-responses.js';
import { type Config, defaultConfig } from '../src/config/index.js';
import { buildApp } from '../src/http/app.js';
import { withKeys } from './helpers/keys.js';
import { followedResponse, withResponsesFollowed } from './helpers/openapi-responses.js';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const METHODS = ['get', 'put', 'post', 'delete', 'patch', 'head'] as const;

interface Response {
  $ref?: string;
  description?: string;
  headers?: Record<string, unknown>;
  content?: Record<string, { schema?: { $ref?: string } }>;
}
interface Document {
  paths: Record<string, Partial<Record<(typeof METHODS)[number], { responses: Record<string, Response> }>>>;
  components: { responses?: Record<string, Response> };
}

/** The document an app with `settings` serves, as JSON and as YAML. */
async function documentsOf(settings: Partial<Config>): Promise<{ json: Document; yaml: Document }> {
  const app = await buildApp({
    config: defaultConfig({ maxEventLoopDelay: 0, databaseUrl: 'sqlite::memory:', ...settings }),
    logStream: false,
  });
  try {
    const json = JSON.parse((await app.inject({ url: '/openapi.json' })).body) as Document;
    const yaml = parseYaml((await app.inject({ url: '/openapi.yaml' })).body) as Document;
    return { json, yaml };
  } finally {
    await app.close();
  }
}

/** Each operation's responses, as `[what, status, response]`. */
const responsesOf = (document: Document) =>
  Object.entries(document.paths).flatMap(([path, item]) =>
    METHODS.flatMap((method) =>
      Object.entries(item[method]?.responses ?? {}).map(
        ([status, response]) => [`${method} ${path} ${status}`, status, response] as const,
      ),
    ),
  );

/** Every `$ref` anywhere in `value`. */
function refsIn(value: unknown): string[] {
  if (Array.isArray(value)) return value.flatMap(refsIn);
  if (value === null || typeof value !== 'object') return [];
  return Object.entries(value).flatMap(([key, inner]) =>
    key === '$ref' && typeof inner === 'string' ? [inner] : refsIn(inner),
  );
}

/** `value` as JSON with its keys sorted: equal for equal values, whatever the order of their keys. */
const canonical = (value: unknown): string =>
  JSON.stringify(value, (_key, inner: unknown) =>
    inner && typeof inner === 'object' && !Array.isArray(inner)
      ? Object.fromEntries(Object.entries(inner).sort(([a], [b]) => (a < b ? -1 : 1)))
      : inner,
  );

const cases: { name: string; settings: Partial<Config> }[] = [
  { name: 'users and products', settings: {} },
  // Accounts, rules, keys and the request budget: 401, 403 and 429 on top of the routes' own.
  { name: 'the example store with API keys', settings: withKeys({ schemas: join(ROOT, 'schemas/shop') }) },
  { name: 'METHOD_OVERRIDE=off', settings: { methodOverride: new Set() } },
];

for (const { name, settings } of cases) {
  describe(`the shared problem responses: ${name}`, () => {
    let served: Document;
    let yaml: Document;
    it('reads the document', async () => {
      ({ json: served, yaml } = await documentsOf(settings));
    });

    it('resolves every $ref to a shared response, and uses every shared response', () => {
      const shared = served.components.responses ?? {};
      const refs = refsIn(served).filter((ref) => ref.startsWith('#/components/responses/'));
      assert.ok(refs.length > Object.keys(shared).length, 'some responses are shared by several operations');
      for (const ref of refs)
        assert.ok(ref.startsWith(SHARED_RESPONSES) && shared[ref.slice(SHARED_RESPONSES.length)], ref);
      const used = new Set(refs.map((ref) => ref.slice(SHARED_RESPONSES.length)));
      assert.deepEqual(
        Object.keys(shared).filter((one) => !used.has(one)),
        [],
        'no shared response goes unused',
      );
    });

    it('writes no problem response twice, nor on an operation, each named after its kinds', () => {
      const shared = Object.entries(served.components.responses ?? {});
      const texts = shared.map(([, response]) => canonical(response));
      assert.equal(new Set(texts).size, texts.length, 'no two shared responses are alike');
      for (const [named, response] of shared) {
        const kinds = problemKindsIn(response.description ?? '');
        assert.ok(kinds.length > 0, named);
        assert.equal(response.description, problemDescription(kinds), named);
        assert.equal(named, sharedResponseName(kinds, response.content !== undefined));
        const body = response.content?.['application/problem+json']?.schema?.$ref;
        assert.equal(body, response.content === undefined ? undefined : '#/components/schemas/Problem', named);
      }
      for (const [what, status, response] of responsesOf(served)) {
        if (Number(status) < 400) continue;
        assert.ok(response.$ref, `${what} is written out on the operation`);
      }
    });

    it('gives back the document as generated when the refs are followed', () => {
      const followed = withResponsesFollowed(served);
      assert.deepEqual(
        refsIn(followed).filter((ref) => ref.startsWith('#/components/responses/')),
        [],
        'followed, no response is a $ref',
      );
      // Sharing what was followed yields the document served: following lost and added nothing.
      const again = structuredClone(followed);
      shareProblemResponses(again);
      assert.deepEqual(again, served);
      for (const [what, status, response] of responsesOf(served)) {
        const kinds = problemKindsIn(followedResponse(served, response).description ?? '');
        assert.equal(kinds.length > 0, Number(status) >= 400, what);
      }
    });

    it("documents a record's problems through the refs, HEAD's without a body", () => {
      const item = served.paths['/user/{id}/'];
      const response = (method: 'get' | 'head', status: string) => {
        const listed = item?.[method]?.responses[status];
        assert.ok(listed?.$ref, `${method} ${status} is shared`);
        return followedResponse(served, listed);
      };
      const kinds = (method: 'get' | 'head', status: string) =>
        problemKindsIn(response(method, status).description ?? '');
      assert.deepEqual(kinds('get', '404'), ['not-found']);
      assert.deepEqual(kinds('get', '500'), ['internal-error']);
      assert.ok(kinds('get', '400').includes('bad-request') && kinds('get', '400').includes('invalid-method-override'));
      if ('apiKeys' in settings) assert.deepEqual(kinds('get', '401'), ['unauthorized']);
      else assert.equal(item?.get?.responses['401'], undefined, 'no key, no 401');
      assert.ok(kinds('get', '429').includes('too-many-requests'));
      assert.ok(response('get', '429').headers?.['Retry-After']);
      // HEAD is GET without its body, before the override header widens GET: the same problems or fewer.
      for (const status of Object.keys(item?.head?.responses ?? {}).filter((one) => Number(one) >= 400)) {
        assert.equal(response('head', status).content, undefined, `head ${status}`);
        const more = kinds('head', status).filter((kind) => !kinds('get', status).includes(kind));
        assert.deepEqual(more, [], `head ${status}`);
      }
    });

    it('shares the same responses in the YAML form', () => {
      assert.deepEqual(yaml.components.responses, served.components.responses);
      assert.deepEqual(withResponsesFollowed(yaml).paths, withResponsesFollowed(served).paths);
    });
  });
}
