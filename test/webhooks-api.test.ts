/**
 * Webhooks managed through the API with a write key: made (the secret shown once), listed,
 * read, replaced, paused and resumed, rotated, removed; declared ones (the WEBHOOKS file)
 * read-only but replayable; every bad definition refused with nothing changed; the cap.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { body, problem, useApp } from './helpers/app.js';
import { withKeys } from './helpers/keys.js';
import { itKeptTheDocument } from './helpers/openapi-validator.js';
import { STORE_KINDS } from './helpers/stores.js';
import { HOOK_URL, hook, secret, webhooksFile } from './helpers/webhook-api.js';

type Webhook = Record<string, unknown> & { id: number; secret?: string };

const DECLARED = webhooksFile([{ name: 'audit', url: HOOK_URL, collections: ['users'], secret: secret() }]);

for (const kind of STORE_KINDS) {
  describe(`webhooks through the API (${kind.name})`, () => {
    const ctx = useApp(kind, withKeys({ webhooks: DECLARED, webhooksMax: 4 }), { contract: true });
    const make = async (definition: object) => {
      const made = await hook(ctx.app, 'POST', '/webhooks/', definition);
      assert.equal(made.statusCode, 201, made.body);
      return body<Webhook>(made);
    };

    it('makes a webhook, shows its secret once, and lists, reads, replaces and removes it', async () => {
      const made = await make({ url: HOOK_URL, collections: ['products'], filter: 'price > 10' });
      assert.match(String(made.secret), /^whsec_/);
      assert.deepEqual(
        { ...made, id: 0, secret: '', createdAt: '', updatedAt: '' },
        {
          id: 0,
          url: HOOK_URL,
          collections: ['products'],
          events: ['created', 'updated', 'deleted'],
          filter: 'price > 10',
          declared: false,
          createdAt: '',
          updatedAt: '',
          paused: null,
          secret: '',
        },
      );
      const read = await hook(ctx.app, 'GET', `/webhook/${made.id}/`);
      assert.equal(read.statusCode, 200);
      assert.equal(body(read).secret, undefined, 'the secret is shown once');
      assert.ok(!read.body.includes(String(made.secret)));
      const listed = body<Webhook[]>(await hook(ctx.app, 'GET', '/webhooks/'));
      assert.deepEqual(
        listed.map((webhook) => [webhook.declared, webhook.name]),
        [
          [true, 'audit'],
          [false, undefined],
        ],
      );
      assert.ok(listed.every((webhook) => webhook.secret === undefined));

      const put = await hook(ctx.app, 'PUT', `/webhook/${made.id}/`, {
        url: `${HOOK_URL}/v2`,
        collections: ['users', 'products'],
        events: ['deleted', 'created'],
      });
      assert.equal(put.statusCode, 200, put.body);
      assert.deepEqual(
        [body(put).url, body(put).collections, body(put).events, body(put).filter],
        [`${HOOK_URL}/v2`, ['users', 'products'], ['created', 'deleted'], null],
      );

      assert.equal((await hook(ctx.app, 'DELETE', `/webhook/${made.id}/`)).statusCode, 204);
      problem(await hook(ctx.app, 'GET', `/webhook/${made.id}/`), 404, 'not-found');
      problem(await hook(ctx.app, 'DELETE', `/webhook/${made.id}/`), 404, 'not-found');
    });

    it('takes a given secret, and makes one at the singular path too', async () => {
      const given = secret();
      const made = await hook(ctx.app, 'POST', '/webhook/', { url: HOOK_URL, collections: ['users'], secret: given });
      assert.equal(made.statusCode, 201, made.body);
      assert.equal(body(made).secret, given);
      assert.equal(made.headers.location, `/webhook/${body<Webhook>(made).id}/`);
      await hook(ctx.app, 'DELETE', String(made.headers.location));
    });

    it('pauses and resumes with PUT', async () => {
      const made = await make({ url: HOOK_URL, collections: ['users'] });
      const definition = { url: HOOK_URL, collections: ['users'] };
      const paused = body(await hook(ctx.app, 'PUT', `/webhook/${made.id}/`, { ...definition, paused: true }));
      assert.equal((paused.paused as { reason: string }).reason, 'paused through the API');
      const resumed = body(await hook(ctx.app, 'PUT', `/webhook/${made.id}/`, { ...definition, paused: false }));
      assert.equal(resumed.paused, null);
      await hook(ctx.app, 'DELETE', `/webhook/${made.id}/`);
    });

    it('rotates the secret: the new one shown once, the old one signing for the overlap', async () => {
      const made = await make({ url: HOOK_URL, collections: ['users'] });
      const rotated = await hook(ctx.app, 'POST', `/webhook/${made.id}/secret/`);
      assert.equal(rotated.statusCode, 200, rotated.body);
      const { secret: fresh, previousSecretUntil } = body<{ secret: string; previousSecretUntil: string }>(rotated);
      assert.match(fresh, /^whsec_/);
      assert.notEqual(fresh, made.secret);
      const overlap = Date.parse(previousSecretUntil) - Date.now();
      assert.ok(overlap > 86_000_000 && overlap <= 86_400_000, previousSecretUntil);
      const read = body(await hook(ctx.app, 'GET', `/webhook/${made.id}/`));
      assert.deepEqual(read.secretRotation, { previousUntil: previousSecretUntil });
      assert.ok(!JSON.stringify(read).includes(fresh));
      await hook(ctx.app, 'DELETE', `/webhook/${made.id}/`);
    });

    it('keeps a declared webhook read-only, but replays it', async () => {
      const listed = body<Webhook[]>(await hook(ctx.app, 'GET', '/webhooks/'));
      const audit = listed.find((webhook) => webhook.name === 'audit');
      assert.ok(audit);
      const path = `/webhook/${audit.id}/`;
      problem(await hook(ctx.app, 'PUT', path, { url: HOOK_URL, collections: ['users'] }), 409, 'webhook-declared');
      problem(await hook(ctx.app, 'DELETE', path), 409, 'webhook-declared');
      problem(await hook(ctx.app, 'POST', `${path}secret/`), 409, 'webhook-declared');
      const replay = await hook(ctx.app, 'POST', `${path}replay/`, { since: new Date(0).toISOString() });
      assert.equal(replay.statusCode, 202, replay.body);
      assert.deepEqual(body(replay), { replayed: 'since', since: '1970-01-01T00:00:00.000Z' });
      problem(await hook(ctx.app, 'POST', `${path}replay/`, { delivery: 'evt_users_1' }), 404, 'nothing-to-replay');
      problem(await hook(ctx.app, 'POST', `${path}replay/`, { since: 'yesterday' }), 400, 'bad-request');
      problem(await hook(ctx.app, 'POST', `${path}replay/`, { delivery: 'x', since: 'y' }), 400, 'bad-request');
    });

    it('refuses every bad definition, pointing at it, and makes nothing', async () => {
      const refusals: [object, number, string, string[]][] = [
        [{ url: 'http://10.1.2.3/in', collections: ['users'] }, 422, 'webhook-address-refused', ['/url']],
        [{ url: 'http://127.0.0.1:9/', collections: ['users'] }, 422, 'webhook-address-refused', ['/url']],
        [{ url: 'ftp://example.com/', collections: ['users'] }, 422, 'webhook-address-refused', ['/url']],
        [{ url: HOOK_URL, collections: ['orders'] }, 422, 'invalid-webhook', ['/collections/0']],
        [{ url: HOOK_URL, collections: [] }, 422, 'invalid-webhook', ['/collections']],
        [{ url: HOOK_URL, collections: ['users', 'users'] }, 422, 'invalid-webhook', ['/collections/1']],
        [{ url: HOOK_URL, collections: ['users'], events: ['made'] }, 422, 'invalid-webhook', ['/events']],
        [{ url: HOOK_URL, collections: ['users'], events: [] }, 422, 'invalid-webhook', ['/events']],
        [{ url: HOOK_URL, collections: ['users'], filter: 'price >' }, 422, 'invalid-webhook', ['/filter']],
        [{ url: HOOK_URL, collections: ['users'], secret: 'hunter2' }, 422, 'invalid-webhook', ['/secret']],
        [{ url: HOOK_URL, collections: ['users'], event: ['created'] }, 422, 'invalid-webhook', ['/event']],
        [{ collections: 'users' }, 422, 'invalid-webhook', ['/url', '/collections']],
        [[], 400, 'malformed-json', []],
      ];
      for (const [definition, status, type, pointers] of refusals) {
        const refused = problem(await hook(ctx.app, 'POST', '/webhooks/', definition), status, type);
        assert.deepEqual(
          (refused.errors ?? []).map((error) => error.pointer),
          pointers,
          JSON.stringify(definition),
        );
      }
      assert.equal(body<Webhook[]>(await hook(ctx.app, 'GET', '/webhooks/')).length, 1, 'only the declared one');
    });

    it('refuses a bad PUT with nothing changed', async () => {
      const made = await make({ url: HOOK_URL, collections: ['users'] });
      const path = `/webhook/${made.id}/`;
      const before = (await hook(ctx.app, 'GET', path)).body;
      problem(await hook(ctx.app, 'PUT', path, { url: HOOK_URL, collections: ['nope'] }), 422, 'invalid-webhook');
      problem(await hook(ctx.app, 'PUT', path, { url: 'http://192.168.0.1/', collections: ['users'] }), 422);
      problem(await hook(ctx.app, 'PUT', path, { url: HOOK_URL, collections: ['users'], secret: secret() }), 422);
      problem(await hook(ctx.app, 'PUT', path, { url: HOOK_URL, collections: ['users'], paused: 'yes' }), 422);
      assert.equal((await hook(ctx.app, 'GET', path)).body, before);
      problem(await hook(ctx.app, 'GET', '/webhook/0/'), 404, 'not-found');
      problem(await hook(ctx.app, 'GET', '/webhook/abc/'), 404, 'not-found');
      await hook(ctx.app, 'DELETE', path);
    });

    it('refuses a webhook past WEBHOOKS_MAX, declared ones counted', async () => {
      const made = [];
      for (let n = 0; n < 3; n += 1) made.push(await make({ url: HOOK_URL, collections: ['users'] }));
      problem(
        await hook(ctx.app, 'POST', '/webhooks/', { url: HOOK_URL, collections: ['users'] }),
        409,
        'too-many-webhooks',
      );
      for (const webhook of made) await hook(ctx.app, 'DELETE', `/webhook/${webhook.id}/`);
    });

    itKeptTheDocument(ctx);
  });
}
