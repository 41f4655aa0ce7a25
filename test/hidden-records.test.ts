/**
 * A record the caller may not view answers every write exactly as an id that does not exist:
 * the same status, headers and problem (but for the id the caller sent), on the wire, as
 * PATCH, tunnelled through POST and as a batch's operation, without `If-Match`, with `*`,
 * with a stale ETag and with the record's own. Before, `If-Match` told them apart: `404`
 * for a hidden record, `412` for a missing one. On every store, with the example shop.
 */
import assert from 'node:assert/strict';
import { before, describe, it } from 'node:test';
import type { LightMyRequestResponse } from 'fastify';
import { body, useApp } from './helpers/app.js';
import { openShop, type Sender, type Shop, send, shopSettings } from './helpers/shop-accounts.js';
import { STORE_KINDS } from './helpers/stores.js';

type Singular = 'order' | 'user';
const PATCHES: Record<Singular, Record<string, unknown>> = { order: { status: 'paid' }, user: { name: 'Eve' } };

/** `If-Match` as sent for record `id` at version 1 (every record here is): none, any, stale, its own. */
const CONDITIONS: Record<string, (id: number) => string | undefined> = {
  'no If-Match': () => undefined,
  'If-Match: *': () => '*',
  'a stale ETag': (id) => `"${id}-99"`,
  "the record's ETag": (id) => `"${id}-1"`,
};

/** The ways to change or delete record `id`: the same request as a client may send it. */
const FORMS = ['PUT', 'PATCH', 'DELETE', 'PUT tunnelled', 'DELETE tunnelled', 'batch PUT', 'batch DELETE'] as const;
type Form = (typeof FORMS)[number];

/** Headers that differ from one request to the next whatever it asks. */
const PER_REQUEST = new Set(['date', 'x-request-id', 'ratelimit-limit', 'ratelimit-remaining', 'ratelimit-reset']);

/** The whole answer, the id written as `ID` (hidden and missing ids are given the same number of digits). */
function answerOf(response: LightMyRequestResponse, id: number) {
  const headers = Object.entries(response.headers).filter(([name]) => !PER_REQUEST.has(name));
  const text = response.body.replace(new RegExp(`(?<![0-9])${id}(?![0-9])`, 'g'), 'ID');
  return { status: response.statusCode, headers: Object.fromEntries(headers), body: text };
}

for (const kind of STORE_KINDS) {
  describe(`records a caller may not view, written to (${kind.name})`, () => {
    const ctx = useApp(kind, shopSettings({ rateLimitMax: 0 }));
    let shop: Shop;
    before(async () => {
      shop = await openShop(ctx.app);
    });

    const write = (sender: Sender, form: Form, singular: Singular, id: number, ifMatch: string | undefined) => {
      const [method, how] = form.startsWith('batch ') ? [form.slice(6), 'batch'] : form.split(' ');
      const path = `/${singular}/${id}/`;
      const payload = method === 'DELETE' ? undefined : PATCHES[singular];
      if (how === 'batch') {
        const operation = { method, path, ...(payload && { body: payload }), ...(ifMatch && { ifMatch }) };
        return send(ctx.app, shop, sender, { method: 'POST', url: '/batch/', payload: [operation] });
      }
      const headers = {
        ...(ifMatch !== undefined && { 'if-match': ifMatch }),
        ...(how === 'tunnelled' && { 'HTTP-X-HTTP-METHOD': method as string }),
      };
      const wire = (how === 'tunnelled' ? 'POST' : method) as 'PUT' | 'PATCH' | 'DELETE' | 'POST';
      return send(ctx.app, shop, sender, { method: wire, url: path, headers, ...(payload && { payload }) });
    };
    /** An id of `singular` with as many digits as `like` that names no record. */
    const missingLike = async (singular: Singular, like: number) => {
      const id = Number('9'.repeat(String(like).length));
      assert.ok(id > like);
      const read = await send(ctx.app, shop, 'write', { method: 'GET', url: `/${singular}/${id}/` });
      assert.equal(read.statusCode, 404, `${singular} ${id} must not exist`);
      return id;
    };
    const readAsKey = async (singular: Singular, id: number) =>
      answerOf(await send(ctx.app, shop, 'write', { method: 'GET', url: `/${singular}/${id}/` }), id);

    /** Who may not view what: no one signed in, another account, and each shopper someone else's. */
    const hidden = (): [Sender, Singular, number][] => [
      ['anonymous', 'order', shop.orders.ada],
      ['anonymous', 'user', shop.people.ada.id],
      ['bob', 'order', shop.orders.ada],
      ['bob', 'user', shop.people.ada.id],
      ['ada', 'order', shop.orders.bob],
      ['ada', 'user', shop.people.bob.id],
    ];

    it('answers a hidden record exactly as a missing id, by every form and condition, and changes nothing', async () => {
      let compared = 0;
      for (const [sender, singular, id] of hidden()) {
        const missing = await missingLike(singular, id);
        const was = await readAsKey(singular, id);
        for (const [condition, ifMatchOf] of Object.entries(CONDITIONS)) {
          for (const form of FORMS) {
            const what = `${sender}, ${form} ${singular}, ${condition}`;
            const toHidden = answerOf(await write(sender, form, singular, id, ifMatchOf(id)), id);
            const toMissing = answerOf(await write(sender, form, singular, missing, ifMatchOf(missing)), missing);
            assert.deepEqual(toHidden, toMissing, what);
            assert.ok(toHidden.status === 404 || toHidden.status === 412, `${what}: ${toHidden.status}`);
            compared++;
          }
        }
        assert.deepEqual(await readAsKey(singular, id), was, `${sender} changed ${singular} ${id}`);
      }
      assert.equal(compared, 6 * 4 * FORMS.length);
    });

    it('answers a missing id 404 without If-Match and 412 with one, for every caller', async () => {
      const missing = await missingLike('order', shop.orders.ada);
      for (const sender of ['anonymous', 'ada', 'bob', 'sam', 'write'] as const) {
        for (const [condition, ifMatchOf] of Object.entries(CONDITIONS)) {
          for (const form of FORMS) {
            const sent = await write(sender, form, 'order', missing, ifMatchOf(missing));
            const expected = condition === 'no If-Match' ? 404 : 412;
            assert.equal(sent.statusCode, expected, `${sender}, ${form}, ${condition}: ${sent.body}`);
          }
        }
      }
    });

    it('tells a caller who may view the record of a stale ETag (412), and one who may not change it 403', async () => {
      for (const form of FORMS) {
        const stale = (sender: Sender, singular: Singular, id: number) =>
          write(sender, form, singular, id, `"${id}-99"`);
        // Ada may view and change her own account, staff and the write key any order.
        assert.equal((await stale('ada', 'user', shop.people.ada.id)).statusCode, 412, `${form}: Ada's account`);
        assert.equal((await stale('sam', 'order', shop.orders.ada)).statusCode, 412, `${form}: staff`);
        assert.equal((await stale('write', 'order', shop.orders.ada)).statusCode, 412, `${form}: the write key`);
        // Ada may view her order but not change it: refused for that, whatever its condition.
        for (const ifMatchOf of Object.values(CONDITIONS)) {
          const id = shop.orders.ada;
          const refused = await write('ada', form, 'order', id, ifMatchOf(id));
          assert.equal(refused.statusCode, 403, `${form}, Ada's order: ${refused.body}`);
        }
      }
      const order = await send(ctx.app, shop, 'write', { method: 'GET', url: `/order/${shop.orders.ada}/` });
      assert.equal(body(order).status, 'placed');
    });
  });
}
