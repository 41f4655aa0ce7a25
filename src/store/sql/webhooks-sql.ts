/**
 * Webhooks (../webhook-model.ts) on any SQL database, written once: their definitions, the
 * places a new collection starts at, pauses, secrets and leases. The deliveries, the settle
 * of a holder's progress and the replays are ./webhook-deliveries-sql.ts's. Every change
 * made from outside a delivery writes the webhook's row first, moving its generation on:
 * on PostgreSQL that row's lock orders it with a holder's settle, which takes it first too.
 */
import type { NewWebhook, StoredWebhook, WebhookSpec, WebhookTables } from '../webhook-model.js';
import type { Guard } from './driver.js';
import type { SqlEngine } from './engine.js';
import { type Program, type Sql, statement } from './program.js';
import { webhookDeliveries } from './webhook-deliveries-sql.js';
import { WEBHOOK_COLUMNS, webhookOf } from './webhook-tables.js';

type Row = Record<string, unknown>;

export function sqlWebhooks(engine: Pick<SqlEngine, 'driver' | 'dialect'>, guard: Guard): WebhookTables {
  const { driver, dialect } = engine;
  const p$ = <K extends string>(build: (p: (name: K) => string) => string) => statement<K>(dialect.placeholder, build);
  const list = p$<never>(() => `SELECT ${WEBHOOK_COLUMNS} FROM webhooks ORDER BY id`);
  const get = p$<'id'>((p) => `SELECT ${WEBHOOK_COLUMNS} FROM webhooks WHERE id = ${p('id')}`);
  const count = p$<never>(() => 'SELECT COUNT(*) AS n FROM webhooks');
  const declared = p$<never>(
    () => `SELECT ${WEBHOOK_COLUMNS} FROM webhooks WHERE declared_as IS NOT NULL ORDER BY id${dialect.forUpdate}`,
  );
  const insert = p$<'declaredAs' | 'url' | 'collections' | 'events' | 'filter' | 'secret' | 'now'>(
    (p) =>
      'INSERT INTO webhooks (declared_as, url, collections, events, filter, secret, created_at, updated_at, generation) ' +
      `VALUES (${p('declaredAs')}, ${p('url')}, ${p('collections')}, ${p('events')}, ${p('filter')}, ${p('secret')}, ` +
      // Instances starting together on a new database may both declare one: the first makes it.
      `${p('now')}, ${p('now')}, 1) ON CONFLICT (declared_as) DO NOTHING RETURNING ${WEBHOOK_COLUMNS}`,
  );
  const change = p$<'id' | 'url' | 'collections' | 'events' | 'filter' | 'now'>(
    (p) =>
      `UPDATE webhooks SET url = ${p('url')}, collections = ${p('collections')}, events = ${p('events')}, ` +
      `filter = ${p('filter')}, updated_at = ${p('now')}, generation = generation + 1 WHERE id = ${p('id')} ` +
      `RETURNING ${WEBHOOK_COLUMNS}`,
  );
  // A declared webhook's new secret replaces the old one at once: the file is the only word on it.
  const setSecret = p$<'id' | 'secret' | 'now'>(
    (p) =>
      `UPDATE webhooks SET secret = ${p('secret')}, previous_secret = NULL, previous_until = NULL, ` +
      `updated_at = ${p('now')}, generation = generation + 1 WHERE id = ${p('id')}`,
  );
  // The right-hand sides read the row as it was: the current secret becomes the previous one.
  const rotate = p$<'id' | 'secret' | 'until' | 'now'>(
    (p) =>
      `UPDATE webhooks SET previous_secret = secret, previous_until = ${p('until')}, secret = ${p('secret')}, ` +
      `updated_at = ${p('now')}, generation = generation + 1 WHERE id = ${p('id')} RETURNING ${WEBHOOK_COLUMNS}`,
  );
  const pause = p$<'id' | 'pausedAt' | 'reason'>(
    (p) =>
      `UPDATE webhooks SET paused_at = ${p('pausedAt')}, pause_reason = ${p('reason')}, generation = generation + 1 ` +
      `WHERE id = ${p('id')} RETURNING ${WEBHOOK_COLUMNS}`,
  );
  const bury = p$<'id'>(
    (p) =>
      `UPDATE webhook_deliveries SET state = 'dead', next_at = NULL ` +
      `WHERE webhook_id = ${p('id')} AND state IN ('retrying', 'waiting')`,
  );
  const removals = ['webhook_positions', 'webhook_deliveries'].map((table) =>
    p$<'id'>((p) => `DELETE FROM ${table} WHERE webhook_id = ${p('id')}`),
  );
  const removeWebhook = p$<'id'>((p) => `DELETE FROM webhooks WHERE id = ${p('id')}`);
  // One statement: two instances asking at once cannot both be granted it.
  const lease = p$<'id' | 'owner' | 'now' | 'until'>(
    (p) =>
      `UPDATE webhooks SET lease_owner = ${p('owner')}, lease_until = ${p('until')} WHERE id = ${p('id')} ` +
      `AND (lease_owner IS NULL OR lease_owner = ${p('owner')} OR lease_until <= ${p('now')}) RETURNING ${WEBHOOK_COLUMNS}`,
  );
  const release = p$<'id' | 'owner'>(
    (p) =>
      `UPDATE webhooks SET lease_owner = NULL, lease_until = NULL WHERE id = ${p('id')} AND lease_owner = ${p('owner')}`,
  );
  const positions = p$<'id'>(
    (p) => `SELECT collection, seq FROM webhook_positions WHERE webhook_id = ${p('id')} ORDER BY collection`,
  );

  /** Starts each of `collections` the webhook lacks a place in at its log's end, in one statement. */
  const follow = (id: number, collections: readonly string[]): Sql => {
    const values: unknown[] = [id];
    const param = (value: unknown) => dialect.placeholder(values.push(value));
    const rows = [...new Set(collections)].map((collection) => `(CAST(${param(collection)} AS TEXT))`);
    // WHERE true: SQLite would otherwise read ON CONFLICT as the join's ON.
    const text =
      `INSERT INTO webhook_positions (webhook_id, collection, seq) SELECT CAST(${dialect.placeholder(1)} AS BIGINT), ` +
      `v.column1, COALESCE(s.seq, 0) FROM (VALUES ${rows.join(', ')}) AS v LEFT JOIN change_seqs s ` +
      'ON s.collection = v.column1 WHERE true ON CONFLICT (webhook_id, collection) DO NOTHING';
    return { text, values };
  };
  /** Forgets the places in collections the webhook no longer follows. */
  const unfollow = (id: number, collections: readonly string[]): Sql => {
    const values: unknown[] = [id];
    const param = (value: unknown) => dialect.placeholder(values.push(value));
    const kept = collections.length === 0 ? '' : ` AND collection NOT IN (${collections.map(param).join(', ')})`;
    return { text: `DELETE FROM webhook_positions WHERE webhook_id = ${dialect.placeholder(1)}${kept}`, values };
  };
  const specValues = (spec: WebhookSpec) => ({
    url: spec.url,
    collections: JSON.stringify(spec.collections),
    events: JSON.stringify(spec.events),
    filter: spec.filter,
  });

  /** Undefined when another instance declared the same webhook meanwhile (a name is made once). */
  function* created(webhook: NewWebhook, now: number): Program<StoredWebhook | undefined> {
    const values = { ...specValues(webhook), declaredAs: webhook.declaredAs ?? null, secret: webhook.secret, now };
    const inserted = (yield insert(values)).rows[0];
    if (!inserted) return undefined;
    const row = webhookOf(inserted);
    if (webhook.collections.length > 0) yield follow(row.id, webhook.collections);
    return row;
  }
  function* updated(id: number, spec: WebhookSpec, now: number): Program<StoredWebhook | undefined> {
    const row = (yield change({ id, ...specValues(spec), now })).rows[0];
    if (!row) return undefined;
    yield unfollow(id, spec.collections);
    if (spec.collections.length > 0) yield follow(id, spec.collections);
    return webhookOf(row);
  }
  // The webhook's row first, as every change from outside does: a settle under way either
  // commits before (and its rows go too) or finds no webhook; never a deadlock between them.
  function* removed(id: number): Program<boolean> {
    const { changes } = yield removeWebhook({ id });
    for (const removal of removals) yield removal({ id });
    return changes > 0;
  }
  function* declaredAs(wanted: readonly NewWebhook[], now: number): Program<string[]> {
    const existing = new Map(
      (yield declared({})).rows.map((row) => webhookOf(row)).map((webhook) => [webhook.declaredAs, webhook]),
    );
    for (const webhook of wanted) {
      const stored = existing.get(webhook.declaredAs ?? null);
      existing.delete(webhook.declaredAs ?? null);
      if (!stored) yield* created(webhook, now);
      else if (!sameSpec(stored, webhook)) yield* updated(stored.id, webhook, now);
      if (stored && stored.secrets.current !== webhook.secret)
        yield setSecret({ id: stored.id, secret: webhook.secret, now });
    }
    for (const gone of existing.values()) yield* removed(gone.id);
    return [...existing.keys()].map(String);
  }
  function* paused(id: number, reason: string | null, now: number): Program<StoredWebhook | undefined> {
    const row = (yield pause({ id, reason, pausedAt: reason === null ? null : now })).rows[0];
    if (row && reason !== null) yield bury({ id });
    return row && webhookOf(row);
  }

  /** Resolves once every committed change has its number, so a new place is past all of them. */
  const numbered = () => guard(driver.numberChanges?.() ?? Promise.resolve());
  const one = async (work: Promise<{ rows: Row[] }>) => {
    const row = (await guard(work)).rows[0];
    return row && webhookOf(row);
  };
  return {
    list: async () => (await guard(driver.read(list({}), false))).rows.map(webhookOf),
    get: (id) => one(driver.read(get({ id }), false)),
    async count() {
      return Number((await guard(driver.read(count({}), false))).rows[0]?.n ?? 0);
    },
    async create(webhook, now) {
      await numbered();
      const made = await guard(driver.transaction(() => created(webhook, now)));
      if (!made) throw new Error(`a webhook named "${webhook.declaredAs}" exists already`);
      return made;
    },
    async update(id, spec, now) {
      await numbered();
      return guard(driver.transaction(() => updated(id, spec, now)));
    },
    remove: (id) => guard(driver.transaction(() => removed(id))),
    // Not numbered first, as at start PostgreSQL may hold a bulk load's changes unnumbered, more
    // than one statement's budget: a new declared webhook may then also send those few.
    declare: (wanted, now) => guard(driver.transaction(() => declaredAs(wanted, now))),
    rotateSecret: (id, secret, until, now) => one(driver.write(rotate({ id, secret, until, now }))),
    pause: (id, reason, now) => guard(driver.transaction(() => paused(id, reason, now))),
    lease: (id, owner, now, leaseMs) => one(driver.write(lease({ id, owner, now, until: now + leaseMs }))),
    async release(id, owner) {
      await guard(driver.write(release({ id, owner })));
    },
    async positions(id) {
      const { rows } = await guard(driver.read(positions({ id }), false));
      return new Map(rows.map((row) => [String(row.collection), Number(row.seq)]));
    },
    ...webhookDeliveries(engine, guard),
  };
}

function sameSpec(stored: StoredWebhook, spec: WebhookSpec): boolean {
  return (
    stored.url === spec.url &&
    stored.filter === spec.filter &&
    JSON.stringify(stored.collections) === JSON.stringify(spec.collections) &&
    JSON.stringify(stored.events) === JSON.stringify(spec.events)
  );
}
