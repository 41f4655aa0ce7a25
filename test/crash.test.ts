/**
 * Durability under faults (SPEC §10, §8): the real server, under concurrent writes from many
 * clients, is killed with SIGKILL at a random moment, again and again on one database. After
 * every restart each acknowledged write must be there and intact, and nothing may be half
 * written: every record is either absent or exactly what a client sent. Each round checks
 * that its kill came after writes had been acknowledged and while others were in flight, so
 * that no round passes for having had nothing to lose.
 *
 * Only the HTTP contract is used (no look into the database), so the test keeps proving
 * durability whatever the write path becomes (group commit, another store).
 *
 * CRASH_ROUNDS sets the kills per store (default 10).
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { describe, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { type RunningServer, startServer } from './helpers/server.js';
import { STORE_KINDS } from './helpers/stores.js';

const ROUNDS = Number(process.env.CRASH_ROUNDS ?? 10);
const CLIENTS = 12;
const TARGETS = 4;
const json = { 'content-type': 'application/json' };

type Fields = Record<string, unknown>;
type StoredRecord = Fields & { id: number };

/** Everything the clients sent and what the server acknowledged, over every round. */
interface Ledger {
  /** Every create sent, by its token: the fields a record made from it must hold exactly. */
  sent: Map<string, Fields>;
  /** Acknowledged creates: the record the 201 carried, by id. */
  created: Map<number, StoredRecord>;
  /** The products the merges go to. */
  products: number[];
  /** Merges sent, by field name: the product and the value. */
  merges: Map<string, { product: number; value: unknown }>;
  /** Acknowledged merges, by field name. */
  mergesAcked: Set<string>;
  /** Records made to be deleted: their fields, by id, and the deletes acknowledged. */
  doomed: Map<number, Fields>;
  deleted: Set<number>;
  /** Creates sent with an Idempotency-Key in the current round: key, body, and the record if acknowledged. */
  keyed: { key: string; body: string; token: string; record?: StoredRecord }[];
}

const pad = (n: number) => 'x'.repeat(n);

/** A record large and structured enough that a partial write could not pass for a whole one. */
function freshFields(round: number, seq: number): Fields {
  const token = randomBytes(8).toString('hex');
  return {
    token,
    round,
    seq,
    fill: pad(100 + (seq % 400)),
    list: Array.from({ length: 20 }, (_, i) => i * seq),
    nested: { a: { b: token, c: [true, null, 1.5] } },
  };
}

async function send(server: RunningServer, path: string, init: RequestInit) {
  const response = await fetch(`${server.url}${path}`, init);
  const text = await response.text();
  return { status: response.status, text, headers: response.headers };
}

/** Sends one of a round's writes, counting it in flight until its answer has been read. */
async function write(server: RunningServer, context: Round, path: string, init: RequestInit) {
  context.inFlight++;
  try {
    return await send(server, path, init);
  } finally {
    context.inFlight--;
  }
}

/** What the clients of one round share: its number, the records left to delete, and whether the server was killed. */
interface Round {
  round: number;
  doomed: number[];
  killed: boolean;
  /** Writes sent and not yet answered: those the kill lands in the middle of. */
  inFlight: number;
  /** Writes acknowledged in this round. */
  acknowledged: number;
}

/** What one round's kill hit, for the diagnostic line. */
interface Kill {
  /** Milliseconds of load before the kill. */
  after: number;
  acknowledged: number;
  inFlight: number;
}

/** One client: writes until the server dies under it. */
async function client(server: RunningServer, ledger: Ledger, context: Round, id: number) {
  const { round, doomed } = context;
  const products = ledger.products;
  for (let seq = id; !context.killed; seq += CLIENTS) {
    const pick = seq % 20;
    try {
      if (pick < 10) {
        const fields = freshFields(round, seq);
        const body = JSON.stringify(fields);
        ledger.sent.set(fields.token as string, fields);
        const keyed: Ledger['keyed'][number] | undefined =
          pick < 3 ? { key: `crash-${round}-${seq}-${fields.token}`, body, token: fields.token as string } : undefined;
        if (keyed) ledger.keyed.push(keyed);
        const headers = keyed ? { ...json, 'idempotency-key': keyed.key } : json;
        const response = await write(server, context, pick % 2 ? '/user/' : '/users/', {
          method: 'POST',
          headers,
          body,
        });
        if (response.status !== 201) throw new Error(`create: ${response.status} ${response.text}`);
        const record = JSON.parse(response.text) as StoredRecord;
        ledger.created.set(record.id, record);
        context.acknowledged++;
        if (keyed) keyed.record = record;
      } else if (pick < 17 || doomed.length === 0) {
        const product = products[seq % products.length] as number;
        const field = `m_${round}_${seq}`;
        const value = { seq, fill: pad(50 + (seq % 100)) };
        ledger.merges.set(field, { product, value });
        const body = JSON.stringify({ [field]: value });
        const tunnelled = pick % 3 === 0;
        const response = await write(server, context, `/product/${product}/`, {
          method: tunnelled ? 'POST' : pick % 2 ? 'PUT' : 'PATCH',
          headers: tunnelled ? { ...json, 'HTTP-X-HTTP-METHOD': 'PUT' } : json,
          body,
        });
        if (response.status !== 200) throw new Error(`merge: ${response.status} ${response.text}`);
        ledger.mergesAcked.add(field);
        context.acknowledged++;
      } else {
        const target = doomed.pop() as number;
        const response = await write(server, context, `/user/${target}/`, {
          method: pick % 2 ? 'DELETE' : 'POST',
          headers: pick % 2 ? {} : { 'HTTP-X-HTTP-METHOD': 'DELETE' },
        });
        if (response.status !== 200) throw new Error(`delete: ${response.status} ${response.text}`);
        ledger.deleted.add(target);
        context.acknowledged++;
      }
    } catch (error) {
      // The server was killed: a refused or reset connection ends this client.
      if (error instanceof TypeError) return;
      throw error;
    }
  }
}

/** Every record of a collection, following the next links. */
async function listAll(server: RunningServer, plural: string): Promise<StoredRecord[]> {
  const records: StoredRecord[] = [];
  let path: string | undefined = `/${plural}/?limit=1000`;
  while (path) {
    const response: Response = await fetch(`${server.url}${path}`);
    assert.equal(response.status, 200);
    records.push(...((await response.json()) as StoredRecord[]));
    path = /<([^>]+)>; rel="next"/.exec(response.headers.get('link') ?? '')?.[1];
  }
  return records;
}

function clientFields(record: Fields): Fields {
  const { id: _id, createdAt: _c, updatedAt: _u, ...fields } = record;
  return fields;
}

/** After a restart: every acknowledged write there and intact, every record whole. Returns the writes checked. */
async function verify(server: RunningServer, ledger: Ledger): Promise<number> {
  let checked = 0;
  const users = new Map((await listAll(server, 'users')).map((r) => [r.id, r]));
  for (const [id, record] of ledger.created) {
    assert.deepEqual(users.get(id), record, `acknowledged create ${id} is there, unchanged`);
    checked++;
  }
  const tokens = new Set<string>();
  for (const record of users.values()) {
    const doomed = ledger.doomed.get(record.id);
    if (doomed) {
      assert.deepEqual(clientFields(record), doomed, `record ${record.id} is whole`);
      continue;
    }
    const token = String(record.token);
    assert.ok(!tokens.has(token), `one record per create (${token})`);
    tokens.add(token);
    assert.deepEqual(clientFields(record), ledger.sent.get(token), `record ${record.id} is exactly what was sent`);
  }
  for (const id of ledger.deleted) {
    assert.equal(users.has(id), false, `acknowledged delete of ${id} holds`);
    checked++;
  }

  const products = new Map((await listAll(server, 'products')).map((r) => [r.id, r]));
  const present = new Map<number, number>();
  for (const [field, { product, value }] of ledger.merges) {
    const record = products.get(product) as StoredRecord;
    if (ledger.mergesAcked.has(field)) {
      assert.deepEqual(record[field], value, `acknowledged merge ${field} is there`);
      checked++;
    }
    if (field in record) {
      assert.deepEqual(record[field], value, `merge ${field} is whole`);
      present.set(product, (present.get(product) ?? 0) + 1);
    }
  }
  for (const product of products.keys()) {
    // Each merge adds one field and one version: a version without its field (or the reverse) is a torn write.
    const etag = (await fetch(`${server.url}/product/${product}/`, { method: 'HEAD' })).headers.get('etag');
    assert.equal(etag, `"${product}-${1 + (present.get(product) ?? 0)}"`, `product ${product}: one version per merge`);
  }
  return checked;
}

/** Retries this round's keyed creates: an acknowledged one replays, none is ever created twice. */
async function retryKeyed(server: RunningServer, ledger: Ledger): Promise<number> {
  for (const keyed of ledger.keyed) {
    const response = await send(server, '/user/', {
      method: 'POST',
      headers: { ...json, 'idempotency-key': keyed.key },
      body: keyed.body,
    });
    if (keyed.record) {
      assert.equal(response.status, 201);
      assert.equal(response.headers.get('idempotent-replayed'), 'true', `${keyed.key} replays`);
      assert.deepEqual(JSON.parse(response.text), keyed.record);
    } else if (response.status === 201) {
      // Never acknowledged: a retry either replays what the dead process committed or creates it now.
      const record = JSON.parse(response.text) as StoredRecord;
      ledger.created.set(record.id, record);
    } else {
      // The dead process's claim is still fresh: the contract's 409 until it goes stale.
      assert.equal(response.status, 409, response.text);
    }
  }
  const retried = ledger.keyed.length;
  ledger.keyed = [];
  return retried;
}

for (const kind of STORE_KINDS) {
  describe(`kill -9 under concurrent writes (${kind.name})`, () => {
    it(`${ROUNDS} kills in a row: every acknowledged write is kept intact, nothing is half written`, async (t) => {
      const db = await kind.create();
      const env = { DATABASE_URL: db.url, RATE_LIMIT_MAX: '0' };
      const ledger: Ledger = {
        sent: new Map(),
        created: new Map(),
        products: [],
        merges: new Map(),
        mergesAcked: new Set(),
        doomed: new Map(),
        deleted: new Set(),
        keyed: [],
      };
      let server = await startServer(env);
      const stats = { checks: 0, retried: 0, kills: [] as Kill[] };
      try {
        for (let k = 0; k < TARGETS; k++) {
          const response = await send(server, '/product/', { method: 'POST', headers: json, body: '{}' });
          const { id } = JSON.parse(response.text) as StoredRecord;
          ledger.products.push(id);
        }
        for (let round = 1; round <= ROUNDS; round++) {
          // This round's records to delete: an earlier round's may have been deleted unacknowledged.
          const context: Round = { round, doomed: [], killed: false, inFlight: 0, acknowledged: 0 };
          for (let d = 0; d < 6; d++) {
            const fields = { doomed: true, round, d };
            const response = await send(server, '/user/', {
              method: 'POST',
              headers: json,
              body: JSON.stringify(fields),
            });
            const { id } = JSON.parse(response.text) as StoredRecord;
            ledger.doomed.set(id, fields);
            context.doomed.push(id);
          }
          const started = Date.now();
          const clients = Array.from({ length: CLIENTS }, (_, i) => client(server, ledger, context, i));
          // The kill lands after a random number of acknowledged writes (never none: a round
          // whose kill came first would check nothing), with others in flight.
          const before = 1 + Math.floor(Math.random() * 100);
          while (context.acknowledged < before || context.inFlight === 0) await sleep(5);
          // Taken just before SIGKILL leaves (stop sends it before its first await).
          const kill: Kill = {
            after: Date.now() - started,
            acknowledged: context.acknowledged,
            inFlight: context.inFlight,
          };
          const exit = server.stop('SIGKILL');
          context.killed = true;
          await exit;
          for (const outcome of await Promise.allSettled(clients)) {
            if (outcome.status === 'rejected') throw outcome.reason;
          }
          stats.kills.push(kill);
          // Each round on its own, not summed over the run: every kill must land on a server
          // that had acknowledged writes (to find again) and was amid others (to tear).
          const figures = `round ${round}: ${kill.acknowledged} acknowledged, ${kill.inFlight} in flight`;
          assert.ok(kill.acknowledged > 0, `${figures}: no write was acknowledged before the kill`);
          assert.ok(kill.inFlight > 0, `${figures}: no write was in flight when the kill came`);
          server = await startServer(env);
          stats.checks += await verify(server, ledger);
          stats.retried += await retryKeyed(server, ledger);
        }
        stats.checks += await verify(server, ledger);
        const acknowledged = stats.kills.reduce((sum, kill) => sum + kill.acknowledged, 0);
        const rounds = stats.kills.map((kill) => `${kill.after}/${kill.acknowledged}/${kill.inFlight}`);
        t.diagnostic(
          `${ROUNDS} kills, each round as ms of load/writes acknowledged before the kill/writes in flight at it: ` +
            `${rounds.join(', ')}; ${acknowledged} writes acknowledged, ` +
            `${stats.checks} checks of acknowledged writes after restarts; ${stats.retried} Idempotency-Key retries`,
        );
      } finally {
        await server.stop('SIGKILL');
        await db.drop();
      }
    });
  });
}
