/**
 * The WEBHOOKS file: every mistake stops the start with one line naming the file and the
 * entry, and each start makes the store's declared webhooks the file's (added, changed,
 * removed, the removed ones logged by name); those made through the API are left alone.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { type Config, ConfigError, defaultConfig } from '../src/config/index.js';
import { buildApp } from '../src/http/app.js';
import { readDeclaredWebhooks } from '../src/records/webhooks/declared-webhooks.js';
import { body, useDatabase } from './helpers/app.js';
import { catalogOf } from './helpers/catalog.js';
import { withKeys } from './helpers/keys.js';
import { STORE_KINDS } from './helpers/stores.js';
import { HOOK_URL, hook, secret, webhooksFile } from './helpers/webhook-api.js';

const catalog = catalogOf(['users', 'products']);
const settings = (webhooks: string, max = 100) => ({
  webhooks,
  webhooksAllowPrivate: false,
  webhooksMax: max,
  maxFieldNameLength: 64,
});
const entry = (fields: object = {}) => ({
  name: 'audit',
  url: HOOK_URL,
  collections: ['users'],
  secret: secret(),
  ...fields,
});

describe('the WEBHOOKS file', () => {
  it('reads each entry as a declared webhook', () => {
    const given = entry({ events: ['deleted'], filter: 'id > 3' });
    const [read] = readDeclaredWebhooks(settings(webhooksFile([given])), catalog);
    assert.deepEqual(read, {
      url: HOOK_URL,
      collections: ['users'],
      events: ['deleted'],
      filter: 'id > 3',
      secret: given.secret,
      declaredAs: 'audit',
    });
  });

  it('refuses each mistake in one line naming the file and the entry', () => {
    const mistakes: [unknown, RegExp][] = [
      ['[', /^.*webhooks\.json: not JSON: /],
      [{}, /webhooks\.json: must be a JSON array of webhooks$/],
      [[entry(), 'x'], /webhooks\.json\[1\]: must be an object/],
      [[entry({ name: undefined })], /webhooks\.json\[0\]\.name: is required/],
      [[entry(), entry()], /webhooks\.json\[1\]\.name: "audit" is the name of an earlier webhook too$/],
      [[entry({ secret: undefined })], /webhooks\.json\[0\]\.secret: is required/],
      [[entry({ secret: 'whsec_short' })], /webhooks\.json\[0\]\.secret: must be a Standard Webhooks secret/],
      [[entry({ url: 'http://10.0.0.1/' })], /webhooks\.json\[0\]\.url: address refused: 10\.0\.0\.1/],
      [
        [entry({ collections: ['users', 'orders'] })],
        /webhooks\.json\[0\]\.collections\[1\]: "orders" is no collection/,
      ],
      [[entry({ events: ['made'] })], /webhooks\.json\[0\]\.events: must be a non-empty array/],
      [[entry({ filter: 'id >' })], /webhooks\.json\[0\]\.filter: column /],
      [[entry({ colections: ['users'] })], /webhooks\.json\[0\]\.colections: is not a field of a webhook/],
    ];
    for (const [content, message] of mistakes) {
      const file = webhooksFile(content);
      assert.throws(
        () => readDeclaredWebhooks(settings(file), catalog),
        (error: Error) => error instanceof ConfigError && message.test(error.message) && !error.message.includes('\n'),
        JSON.stringify(content),
      );
    }
    assert.throws(() => readDeclaredWebhooks(settings('/no/such/webhooks.json'), catalog), /cannot read/);
    const two = webhooksFile([entry(), entry({ name: 'other' })]);
    assert.throws(() => readDeclaredWebhooks(settings(two, 1), catalog), /more than WEBHOOKS_MAX \(1\)$/);
  });
});

for (const kind of STORE_KINDS) {
  describe(`a start syncs the declared webhooks (${kind.name})`, () => {
    const ctx = useDatabase(kind);
    const start = async (webhooks: string, logs: string[] = []) => {
      const config: Config = defaultConfig({
        ...withKeys({ webhooks }),
        maxEventLoopDelay: 0,
        databaseUrl: ctx.db.url,
      });
      return buildApp({ config, logStream: { write: (line) => logs.push(line) } });
    };
    const listed = async (webhooks: string) => {
      const app = await start(webhooks);
      try {
        return body<{ name?: string; url: string; declared: boolean }[]>(await hook(app, 'GET', '/webhooks/'));
      } finally {
        await app.close();
      }
    };

    it('adds, changes and removes them as the file says, and leaves the API’s alone', async () => {
      const first = webhooksFile([entry({ name: 'audit' }), entry({ name: 'search', collections: ['products'] })]);
      const app = await start(first);
      const made = await hook(app, 'POST', '/webhooks/', { url: HOOK_URL, collections: ['products'] });
      assert.equal(made.statusCode, 201, made.body);
      await app.close();

      const second = webhooksFile([entry({ name: 'audit', url: `${HOOK_URL}/v2` }), entry({ name: 'billing' })]);
      const logs: string[] = [];
      await (await start(second, logs)).close();
      assert.ok(
        logs.some((line) => line.includes('removed: search')),
        logs.join('\n'),
      );
      const now = await listed(second);
      assert.deepEqual(
        now.map((webhook) => [webhook.name ?? null, webhook.url, webhook.declared]),
        [
          ['audit', `${HOOK_URL}/v2`, true],
          [null, HOOK_URL, false],
          ['billing', HOOK_URL, true],
        ],
      );
      const none = await listed('');
      assert.deepEqual(
        none.map((webhook) => webhook.declared),
        [false],
      );
    });

    it('refuses to start on a mistake in the file', async () => {
      await assert.rejects(start(webhooksFile([entry({ collections: ['orders'] })])), ConfigError);
    });
  });
}
