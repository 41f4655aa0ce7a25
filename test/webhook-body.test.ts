/**
 * What a webhook sends for a change (src/records/webhooks/webhook-body.ts): the Standard
 * Webhooks payload with the record as the change feed writes it, `previous` on updates, cut
 * in two steps to the bound; and which changes a webhook's events and filter let through,
 * an update that takes a record out of the filter included.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { parseFilter } from '../src/records/list-filter.js';
import { ANY_FIELDS } from '../src/records/query-fields.js';
import { renderRecord } from '../src/records/render.js';
import { webhookMatches, webhookMessage } from '../src/records/webhooks/index.js';
import type { Change } from '../src/store/store.js';

const CREATED = '2026-11-28T10:00:00.000Z';
const UPDATED = '2026-11-28T11:00:00.000Z';
const LOGGED = '2026-11-28T11:00:00.012Z';

function change(kind: Change['kind'], data: string, previous?: string, loggedAt: string | null = LOGGED): Change {
  const record = { id: 7, data, version: kind === 'created' ? 1 : 2, createdAt: CREATED, updatedAt: UPDATED };
  return { seq: 42, kind, record, ...(previous !== undefined && { previous }), ...(loggedAt && { loggedAt }) };
}

const bytes = (text: string) => Buffer.byteLength(text, 'utf8');
const filter = (text: string) => parseFilter(text, { maxLength: 64, fields: ANY_FIELDS });

describe('webhook bodies', () => {
  it('sends the record as the feed writes it, with the fields before an update', () => {
    const created = webhookMessage('orders', change('created', '{"status": "placed", "total": 12}'), 65536);
    assert.equal(created.messageId, 'evt_orders_42');
    assert.equal(created.type, 'orders.created');
    // The stored text is put in as it is (PostgreSQL's blanks included), never written again.
    assert.equal(
      created.body,
      `{"type":"orders.created","timestamp":"${LOGGED}","data":{"id":7,"status": "placed", "total": 12,"createdAt":"${CREATED}","updatedAt":"${UPDATED}"}}`,
    );
    const updated = webhookMessage('orders', change('updated', '{"status":"paid"}', '{"status":"placed"}'), 65536);
    assert.equal(updated.type, 'orders.updated');
    assert.deepEqual(JSON.parse(updated.body), {
      type: 'orders.updated',
      timestamp: LOGGED,
      data: { id: 7, status: 'paid', createdAt: CREATED, updatedAt: UPDATED },
      previous: { status: 'placed' },
    });
    const deleted = webhookMessage('orders', change('deleted', '{"status":"paid"}', undefined, null), 65536);
    assert.equal(JSON.parse(deleted.body).type, 'orders.deleted');
    assert.equal(JSON.parse(deleted.body).timestamp, UPDATED, 'without the time logged, the record’s');
    assert.equal('previous' in JSON.parse(deleted.body), false);
  });

  it('drops previous, then cuts data to the record’s id, version and times', () => {
    const big = JSON.stringify({ note: 'é'.repeat(300) });
    const whole = webhookMessage('orders', change('updated', '{"a":1}', big), 65536).body;
    const withoutPrevious = webhookMessage('orders', change('updated', '{"a":1}', big), bytes(whole) - 1).body;
    assert.deepEqual(Object.keys(JSON.parse(withoutPrevious)), ['type', 'timestamp', 'data']);
    assert.deepEqual(JSON.parse(withoutPrevious).data, JSON.parse(renderRecord(change('updated', '{"a":1}').record)));

    const cut = JSON.parse(webhookMessage('orders', change('created', big), 300).body);
    assert.deepEqual(cut, {
      type: 'orders.created',
      timestamp: LOGGED,
      data: { id: 7, version: 1, createdAt: CREATED, updatedAt: UPDATED },
      truncated: true,
    });
  });

  it('always writes JSON, within the bound whenever the shortest body fits', () => {
    const text = fc.string({ unit: 'grapheme', maxLength: 40 });
    const fields = fc.dictionary(fc.string({ maxLength: 8 }), fc.oneof(text, fc.integer(), fc.boolean()), {
      maxKeys: 12,
    });
    const arb = fc.record({
      kind: fc.constantFrom<Change['kind']>('created', 'updated', 'deleted'),
      now: fields,
      before: fields,
      blanks: fc.boolean(),
      extra: fc.nat(1500),
    });
    fc.assert(
      fc.property(arb, ({ kind, now, before, blanks, extra }) => {
        const data = JSON.stringify(now, null, blanks ? ' ' : undefined);
        const c = change(kind, data, kind === 'updated' ? JSON.stringify(before) : undefined);
        const shortest = bytes(webhookMessage('things', c, 0).body);
        const maxBytes = shortest + extra;
        const { body } = webhookMessage('things', c, maxBytes);
        const sent = JSON.parse(body);
        assert.ok(bytes(body) <= maxBytes);
        assert.equal(sent.type, `things.${kind}`);
        if (sent.truncated) {
          assert.deepEqual(Object.keys(sent.data), ['id', 'version', 'createdAt', 'updatedAt']);
        } else {
          assert.deepEqual(sent.data, JSON.parse(renderRecord(c.record)));
          const whole = webhookMessage('things', c, Number.POSITIVE_INFINITY).body;
          assert.equal('previous' in sent, kind === 'updated' && bytes(whole) <= maxBytes);
        }
      }),
      { numRuns: 300 },
    );
  });
});

describe('which changes a webhook sends', () => {
  const all = ['created', 'updated', 'deleted'] as const;

  it('sends only the events it asks for', () => {
    const created = change('created', '{"status":"placed"}');
    assert.equal(webhookMatches(created, all, undefined), true);
    assert.equal(webhookMatches(created, ['updated', 'deleted'], undefined), false);
    assert.equal(webhookMatches(change('deleted', '{}'), ['deleted'], undefined), true);
  });

  it('sends what its filter holds for, and an update that takes a record out of it', () => {
    const placed = filter("status = 'placed' && total >= 10");
    assert.equal(webhookMatches(change('created', '{"status":"placed","total":12}'), all, placed), true);
    assert.equal(webhookMatches(change('created', '{"status":"placed","total":2}'), all, placed), false);
    const into = change('updated', '{"status":"placed","total":12}', '{"status":"cart","total":12}');
    const outOf = change('updated', '{"status":"paid","total":12}', '{"status":"placed","total":12}');
    const outside = change('updated', '{"status":"paid","total":12}', '{"status":"cart","total":12}');
    assert.equal(webhookMatches(into, all, placed), true);
    assert.equal(webhookMatches(outOf, all, placed), true, 'the receiver hears the record leave');
    assert.equal(webhookMatches(outside, all, placed), false);
    assert.equal(webhookMatches(outOf, ['created', 'deleted'], placed), false);
    // A deleted record is judged as it was.
    assert.equal(webhookMatches(change('deleted', '{"status":"placed","total":10}'), all, placed), true);
    // System fields, and an expression that holds for nothing.
    assert.equal(webhookMatches(into, all, filter('id = 7')), true);
    assert.equal(webhookMatches(into, all, filter('id = 8')), false);
    assert.equal(webhookMatches(into, all, filter('false')), false);
  });
});
