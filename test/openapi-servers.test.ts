/**
 * The OpenAPI document's `servers`: the origin each request reached the server at (through
 * trusted proxies only), or PUBLIC_URL when set; the same in JSON and YAML, and never one
 * request's origin in another's document, though the document is rendered once.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { FastifyInstance } from 'fastify';
import { parse as parseYaml } from 'yaml';
import { type Config, ConfigError, defaultConfig, loadConfig } from '../src/config/index.js';
import { buildApp } from '../src/http/app.js';

interface Served {
  servers: { url: string; description?: string }[];
  paths: Record<string, unknown>;
}

async function withApp(settings: Partial<Config>, run: (app: FastifyInstance) => Promise<void>) {
  const app = await buildApp({
    config: defaultConfig({ databaseUrl: 'sqlite::memory:', maxEventLoopDelay: 0, ...settings }),
    logStream: false,
  });
  try {
    await run(app);
  } finally {
    await app.close();
  }
}

async function servedTo(app: FastifyInstance, headers: Record<string, string>, format: 'json' | 'yaml' = 'json') {
  const response = await app.inject({ url: `/openapi.${format}`, headers });
  assert.equal(response.statusCode, 200);
  return (format === 'json' ? JSON.parse(response.body) : parseYaml(response.body)) as Served;
}

const urlsOf = (document: Served) => document.servers.map((server) => server.url);

describe("the OpenAPI document's servers", () => {
  it("is the request's own origin, per request, in JSON and YAML alike", async () => {
    await withApp({}, async (app) => {
      assert.deepEqual(urlsOf(await servedTo(app, { host: 'api.restock.test:8080' })), [
        'http://api.restock.test:8080',
      ]);
      assert.deepEqual(urlsOf(await servedTo(app, { host: '[::1]:3000' })), ['http://[::1]:3000']);
      assert.deepEqual(urlsOf(await servedTo(app, { host: 'other.test' }, 'yaml')), ['http://other.test']);
      // Rendered once, but each request still gets its own origin.
      const again = await servedTo(app, { host: 'api.restock.test:8080' }, 'yaml');
      assert.deepEqual(urlsOf(again), ['http://api.restock.test:8080']);
      const json = await servedTo(app, { host: 'api.restock.test:8080' });
      assert.deepEqual(again, json, 'YAML and JSON say the same');
      assert.ok(json.paths['/users/'], 'the rest of the document is untouched');
    });
  });

  it('believes X-Forwarded-Proto and X-Forwarded-Host only from a trusted proxy', async () => {
    const forwarded = { host: 'internal:3000', 'x-forwarded-proto': 'https', 'x-forwarded-host': 'api.restock.test' };
    await withApp({}, async (app) => {
      assert.deepEqual(urlsOf(await servedTo(app, forwarded)), ['http://internal:3000']);
    });
    // inject's requests come from 127.0.0.1.
    await withApp({ trustProxy: '127.0.0.1' }, async (app) => {
      assert.deepEqual(urlsOf(await servedTo(app, forwarded)), ['https://api.restock.test']);
      assert.deepEqual(urlsOf(await servedTo(app, forwarded, 'yaml')), ['https://api.restock.test']);
    });
  });

  it('stays relative when the Host names no origin', async () => {
    await withApp({}, async (app) => {
      for (const host of ['user@api.restock.test', 'api.restock.test/path']) {
        assert.deepEqual(urlsOf(await servedTo(app, { host })), ['/'], host);
      }
    });
  });

  it('is PUBLIC_URL when set, whatever the request, and keeps every path whole', async () => {
    // A path that begins like the API's own: it must not be cut off the documented paths.
    const { config } = loadConfig([], { PUBLIC_URL: 'https://api.restock.test/users/' });
    assert.equal(config.publicUrl, 'https://api.restock.test/users');
    await withApp({ publicUrl: config.publicUrl }, async (app) => {
      for (const format of ['json', 'yaml'] as const) {
        const served = await servedTo(app, { host: 'internal:3000' }, format);
        assert.deepEqual(urlsOf(served), ['https://api.restock.test/users']);
        assert.ok(served.paths['/users/'] && served.paths['/user/{id}/'], format);
      }
    });
  });

  it('refuses a PUBLIC_URL that is not an http(s) URL with a config error naming it', () => {
    for (const bad of [
      'api.restock.test',
      'ftp://api.restock.test',
      'https://u:p@api.restock.test',
      'https://x.test/?a=1',
    ]) {
      assert.throws(
        () => loadConfig([], { PUBLIC_URL: bad }),
        (error: Error) => error instanceof ConfigError && /PUBLIC_URL/.test(error.message),
        bad,
      );
    }
    assert.throws(() => loadConfig(['--public-url', 'nope'], {}), /--public-url/);
    assert.equal(loadConfig([], {}).config.publicUrl, '');
  });
});
