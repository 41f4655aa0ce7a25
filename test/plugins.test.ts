/**
 * The plugins of the HTTP layer check their own order: each names the plugins it needs
 * before it, and Fastify refuses to start when one is missing or comes later.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import Fastify from 'fastify';
import * as plugins from '../src/http/plugins/index.js';

/** The name fastify-plugin gives a plugin, which other plugins depend on. */
function nameOf(plugin: unknown): string | undefined {
  return (plugin as { [key: symbol]: { name?: string } | undefined })[Symbol.for('plugin-meta')]?.name;
}

describe('the HTTP plugins', () => {
  it('refuse to start before a plugin they depend on', async () => {
    const app = Fastify({ logger: false });
    app.register(plugins.problems);
    app.register(plugins.rateLimit, { max: 10, windowMs: 1000, redisUrl: '' });
    await assert.rejects(async () => {
      await app.ready();
    }, /dependency 'restock-request-id' of plugin 'restock-rate-limit'/);
  });

  it('start in the order src/http/app.ts registers them', async () => {
    const app = Fastify({ logger: false });
    app.register(plugins.problems);
    app.register(plugins.requestId);
    app.register(plugins.loadShedding, { maxEventLoopDelayMs: 0, sampleIntervalMs: 1000 });
    app.register(plugins.methodOverride, { allowed: new Set(['POST'] as const) });
    app.register(plugins.cors, { origins: '*' });
    app.register(plugins.accessControl, { keys: [], publicReads: false });
    app.register(plugins.rateLimit, { max: 10, windowMs: 1000, redisUrl: '' });
    await app.ready();
    await app.close();
  });

  it('are all awaited by the plugins whose routes live in a scope of their own', () => {
    const names = Object.values(plugins)
      .map(nameOf)
      .filter((name) => name !== undefined);
    assert.deepEqual(names.sort(), [...plugins.REQUEST_PLUGINS].sort());
  });
});
