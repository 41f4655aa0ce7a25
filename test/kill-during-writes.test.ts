/**
 * Group commit under a crash: a real server process is killed with SIGKILL while a stream
 * of concurrent writes is being batched. After each restart, every write it acknowledged
 * is there and intact: creates, merges and deletes alike.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import Database from 'better-sqlite3';
import { type RunningServer, startServer } from './helpers/server.js';
import { sqliteKind } from './helpers/stores.js';

const json = { 'content-type': 'application/json' };
const WRITERS = 24;
const KILLS = 3;
/** Acknowledged writes to wait for before each kill: the kill lands in a stream of batches. */
const WRITES_BEFORE_KILL = 150;

interface Acknowledged {
  /** Users each writer created, by id, with the body the server answered. */
  created: Map<number, Record<string, unknown>>;
  /** Ids whose DELETE was acknowledged. */
  deleted: Set<number>;
  /** Ids whose DELETE was sent: without its answer, the record may or may not be gone. */
  deleting: Set<number>;
  /** The product every writer merges its own counter field into, and the last acked value. */
  counters: Map<string, number>;
}

describe('kill -9 during a stream of batched writes (sqlite)', () => {
  it('keeps every acknowledged create, merge and delete across several kills', async () => {
    const db = await sqliteKind.create();
    const acked: Acknowledged = { created: new Map(), deleted: new Set(), deleting: new Set(), counters: new Map() };
    let productId = 0;
    try {
      for (let round = 1; round <= KILLS; round++) {
        const server = await startServer({ DATABASE_URL: db.url });
        try {
          await verify(server, acked, productId);
          if (productId === 0) productId = await createProduct(server);
          await writeUntilKilled(server, acked, productId, round);
        } finally {
          await server.stop('SIGKILL');
        }
      }
      const server = await startServer({ DATABASE_URL: db.url });
      try {
        await verify(server, acked, productId);
      } finally {
        assert.equal(await server.stop(), 0);
      }
      const check = new Database(db.url.slice('sqlite:'.length), { readonly: true });
      assert.equal(check.pragma('integrity_check', { simple: true }), 'ok');
      check.close();
    } finally {
      await db.drop();
    }
  });
});

async function createProduct(server: RunningServer): Promise<number> {
  const response = await fetch(`${server.url}/product/`, { method: 'POST', headers: json, body: '{}' });
  assert.equal(response.status, 201);
  return ((await response.json()) as { id: number }).id;
}

/**
 * Runs WRITERS loops of create, merge and delete until WRITES_BEFORE_KILL more writes are
 * acknowledged, then kills the server with SIGKILL while the loops still have writes in flight.
 */
async function writeUntilKilled(server: RunningServer, acked: Acknowledged, productId: number, round: number) {
  let count = 0;
  let killed = false;
  const ack = () => {
    count++;
    if (count >= WRITES_BEFORE_KILL && !killed) {
      killed = true;
      server.process.kill('SIGKILL');
    }
  };
  const writer = async (w: number) => {
    const field = `r${round}w${w}`;
    for (let i = 1; !killed; i++) {
      try {
        const created = await fetch(`${server.url}/user/`, {
          method: 'POST',
          headers: json,
          body: JSON.stringify({ writer: w, round, i, text: 'x'.repeat(i % 50) }),
        });
        if (created.status !== 201) throw new Error(`create answered ${created.status}`);
        const record = (await created.json()) as Record<string, unknown> & { id: number };
        acked.created.set(record.id, record);
        ack();
        const merged = await fetch(`${server.url}/product/${productId}/`, {
          method: i % 2 ? 'PUT' : 'POST',
          headers: i % 2 ? json : { ...json, 'HTTP-X-HTTP-METHOD': 'PUT' },
          body: JSON.stringify({ [field]: i }),
        });
        if (merged.status !== 200) throw new Error(`merge answered ${merged.status}`);
        acked.counters.set(field, i);
        ack();
        if (i % 3 === 0) {
          acked.deleting.add(record.id);
          const removed = await fetch(`${server.url}/user/${record.id}/`, { method: 'DELETE' });
          if (removed.status !== 200) throw new Error(`delete answered ${removed.status}`);
          acked.deleted.add(record.id);
          ack();
        }
      } catch (error) {
        // Only the kill may interrupt a writer; anything else is a failure of the test.
        if (!killed) throw error;
      }
    }
  };
  await Promise.all(Array.from({ length: WRITERS }, (_, w) => writer(w)));
  assert.ok(count >= WRITES_BEFORE_KILL);
}

/** Every acknowledged write is present after the restart, as it was acknowledged. */
async function verify(server: RunningServer, acked: Acknowledged, productId: number) {
  for (const [id, record] of acked.created) {
    const response = await fetch(`${server.url}/user/${id}/`);
    if (acked.deleted.has(id) || (acked.deleting.has(id) && response.status === 404)) {
      assert.equal(response.status, 404, `user ${id} was deleted`);
      await response.body?.cancel();
      continue;
    }
    assert.equal(response.status, 200, `user ${id} was acknowledged`);
    assert.deepEqual(await response.json(), record);
  }
  if (productId === 0) return;
  const product = (await (await fetch(`${server.url}/product/${productId}/`)).json()) as Record<string, number>;
  for (const [field, value] of acked.counters) {
    // A merge sent after the last acknowledged one may have committed without its answer.
    assert.ok(product[field] === value || product[field] === value + 1, `${field}: ${product[field]} after ${value}`);
  }
}
