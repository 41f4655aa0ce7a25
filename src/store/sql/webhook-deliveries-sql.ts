/**
 * Webhooks' deliveries on any SQL database: a holder's settle (its places moved on and its
 * deliveries kept, in one transaction, only while it holds the lease at the generation it
 * read), the listings, the replays and the trim. See ./webhooks-sql.ts for the rest.
 */
import type { Delivery, WebhookTables } from '../webhook-model.js';
import type { Guard } from './driver.js';
import type { SqlEngine } from './engine.js';
import { chunked, insertRows } from './insert-rows.js';
import type { Program } from './program.js';
import { type Sql, statement } from './program.js';
import { DELIVERY_COLUMNS, DELIVERY_FIELDS, deliveryOf, deliveryValues } from './webhook-tables.js';

type DeliveryParts = Pick<
  WebhookTables,
  'settle' | 'open' | 'deliveries' | 'delivery' | 'replay' | 'replaySince' | 'trim'
>;

const OPEN = "state IN ('retrying', 'waiting')";

export function webhookDeliveries(
  { driver, dialect }: Pick<SqlEngine, 'driver' | 'dialect'>,
  guard: Guard,
): DeliveryParts {
  const p$ = <K extends string>(build: (p: (name: K) => string) => string) => statement<K>(dialect.placeholder, build);
  // A no-op write whose count says whether `owner` holds the lease at `generation`; on
  // PostgreSQL it locks the row, so a pause or replay cannot slip in before the commit.
  const check = p$<'id' | 'owner' | 'generation'>(
    (p) =>
      `UPDATE webhooks SET generation = generation WHERE id = ${p('id')} AND lease_owner = ${p('owner')} ` +
      `AND generation = ${p('generation')}`,
  );
  const open = p$<'id'>(
    (p) =>
      `SELECT ${DELIVERY_COLUMNS} FROM webhook_deliveries WHERE webhook_id = ${p('id')} AND ${OPEN} ` +
      'ORDER BY collection, seq',
  );
  const one = p$<'id' | 'messageId'>(
    (p) =>
      `SELECT ${DELIVERY_COLUMNS} FROM webhook_deliveries WHERE webhook_id = ${p('id')} ` +
      `AND message_id = ${p('messageId')}`,
  );
  const lock = p$<'id'>((p) => `SELECT id FROM webhooks WHERE id = ${p('id')}${dialect.forUpdate}`);
  // Sent again from scratch: due now, its attempts and its time to give up counted anew.
  const again = p$<'id' | 'messageId' | 'now'>(
    (p) =>
      `UPDATE webhook_deliveries SET state = 'retrying', attempts = 0, next_at = ${p('now')}, ` +
      `first_attempt_at = ${p('now')} WHERE webhook_id = ${p('id')} AND message_id = ${p('messageId')}`,
  );
  const resume = p$<'id'>(
    (p) =>
      'UPDATE webhooks SET paused_at = NULL, pause_reason = NULL, generation = generation + 1 ' +
      `WHERE id = ${p('id')} RETURNING id`,
  );
  // Each place back to before the first change its log holds from `since` on; where the log
  // holds none from then, the counter (the place moves back only, so it stays).
  const placeSince = (p: (name: 'since') => string) =>
    `COALESCE((SELECT MIN(c.seq) - 1 FROM changes c WHERE c.collection = webhook_positions.collection ` +
    `AND c.logged_at >= ${p('since')}), (SELECT s.seq FROM change_seqs s ` +
    'WHERE s.collection = webhook_positions.collection), 0)';
  const rewind = p$<'id' | 'since'>(
    (p) =>
      `UPDATE webhook_positions SET seq = ${placeSince(p)} WHERE webhook_id = ${p('id')} AND seq > ${placeSince(p)}`,
  );
  const positions = p$<'id'>((p) => `SELECT collection, seq FROM webhook_positions WHERE webhook_id = ${p('id')}`);
  const deadSince = (p: (name: 'id' | 'occurred') => string) =>
    `webhook_id = ${p('id')} AND state = 'dead' AND occurred_at >= ${p('occurred')}`;
  // Dead letters the log still holds past the new place: the log sends them again.
  const forget = p$<'id' | 'occurred'>(
    (p) =>
      `DELETE FROM webhook_deliveries WHERE ${deadSince(p)} AND seq > (SELECT w.seq FROM webhook_positions w ` +
      'WHERE w.webhook_id = webhook_deliveries.webhook_id AND w.collection = webhook_deliveries.collection)',
  );
  // The others of the followed collections: their changes are trimmed from the log.
  const revive = p$<'id' | 'occurred' | 'now'>(
    (p) =>
      `UPDATE webhook_deliveries SET state = 'retrying', attempts = 0, next_at = ${p('now')}, ` +
      `first_attempt_at = ${p('now')} WHERE ${deadSince(p)} AND collection IN ` +
      `(SELECT w.collection FROM webhook_positions w WHERE w.webhook_id = ${p('id')})`,
  );
  const trimDead = p$<'before'>(
    (p) => `DELETE FROM webhook_deliveries WHERE state = 'dead' AND last_attempt_at < ${p('before')}`,
  );
  const trimDelivered = p$<'keep'>(
    (p) =>
      'DELETE FROM webhook_deliveries WHERE (webhook_id, message_id) IN (SELECT webhook_id, message_id FROM ' +
      '(SELECT webhook_id, message_id, ROW_NUMBER() OVER (PARTITION BY webhook_id ' +
      "ORDER BY last_attempt_at DESC, seq DESC) AS n FROM webhook_deliveries WHERE state = 'delivered') ranked " +
      `WHERE n > ${p('keep')})`,
  );

  /** Each place moved to `seq` where that is further on, in one statement. */
  const advance = (id: number, places: ReadonlyMap<string, number>): Sql =>
    insertRows(
      dialect,
      [
        'INSERT INTO webhook_positions (webhook_id, collection, seq)',
        ' ON CONFLICT (webhook_id, collection) DO UPDATE SET seq = excluded.seq ' +
          'WHERE webhook_positions.seq < excluded.seq',
      ],
      [...places],
      ([collection, seq], param) => `${param(id)}, ${param(collection)}, ${param(seq)}`,
    );
  const columns = DELIVERY_FIELDS.map(([column]) => column);
  const replaced = columns.slice(2).map((column) => `${column} = excluded.${column}`);
  const keep = (rows: readonly Delivery[]): Sql =>
    insertRows(
      dialect,
      [
        `INSERT INTO webhook_deliveries (${columns.join(', ')})`,
        ` ON CONFLICT (webhook_id, message_id) DO UPDATE SET ${replaced.join(', ')}`,
      ],
      rows,
      (delivery, param) => deliveryValues(delivery).map(param).join(', '),
    );

  function* settled(
    id: number,
    owner: string,
    generation: number,
    places: ReadonlyMap<string, number>,
    deliveries: readonly Delivery[],
  ): Program<boolean> {
    if ((yield check({ id, owner, generation })).changes === 0) return false;
    if (places.size > 0) yield advance(id, places);
    // One row per message id: a statement may not upsert one row twice. The last one given wins.
    const latest = [...new Map(deliveries.map((one) => [one.messageId, { ...one, webhookId: id }])).values()];
    for (const rows of chunked(latest)) yield keep(rows);
    return true;
  }
  function* replayed(id: number, messageId: string, now: number): Program<boolean> {
    yield lock({ id });
    if ((yield again({ id, messageId, now })).changes === 0) return false;
    yield resume({ id });
    return true;
  }
  function* replayedSince(id: number, since: number, now: number): Program<Map<string, number>> {
    if ((yield resume({ id })).rows.length === 0) return new Map();
    yield rewind({ id, since: new Date(since).toISOString() });
    yield forget({ id, occurred: since });
    yield revive({ id, occurred: since, now });
    const { rows } = yield positions({ id });
    return new Map(rows.map((row) => [String(row.collection), Number(row.seq)]));
  }
  function* trimmed(keepDelivered: number, before: number): Program<number> {
    const dead = yield trimDead({ before });
    const delivered = yield trimDelivered({ keep: keepDelivered });
    return dead.changes + delivered.changes;
  }

  return {
    settle: (id, owner, generation, places, deliveries) =>
      guard(driver.transaction(() => settled(id, owner, generation, places, deliveries))),
    open: async (id) => (await guard(driver.read(open({ id }), false))).rows.map(deliveryOf),
    async deliveries(id, { state, before, limit }) {
      const values: unknown[] = [id];
      const param = (value: unknown) => dialect.placeholder(values.push(value));
      const where = [
        `webhook_id = ${dialect.placeholder(1)}`,
        ...(state === undefined ? [] : [`state = ${param(state)}`]),
        ...(before === undefined ? [] : [`last_attempt_at < ${param(before)}`]),
      ];
      const text =
        `SELECT ${DELIVERY_COLUMNS} FROM webhook_deliveries WHERE ${where.join(' AND ')} ` +
        `ORDER BY last_attempt_at DESC, seq DESC LIMIT ${param(limit)}`;
      return (await guard(driver.read({ text, values }, false))).rows.map(deliveryOf);
    },
    async delivery(id, messageId) {
      const row = (await guard(driver.read(one({ id, messageId }), false))).rows[0];
      return row && deliveryOf(row);
    },
    replay: (id, messageId, now) => guard(driver.transaction(() => replayed(id, messageId, now))),
    replaySince: (id, since, now) => guard(driver.transaction(() => replayedSince(id, since, now))),
    trim: (keepDelivered, before) => guard(driver.transaction(() => trimmed(keepDelivered, before))),
  };
}
