/**
 * Concurrency (SPEC §4, §10): 1,000 merges of distinct fields, all sent at once, into a
 * handful of records through two restock processes on one database. None may be lost,
 * land on the wrong record, or be counted twice.
 *
 * A merge may be refused with 503 and Retry-After (on SQLite, a write that waits for the
 * other process's write lock past DATABASE_LOCK_TIMEOUT; load shedding, which the test
 * servers run without, would be another); the client then
 * retries, as the contract asks, and the record's version proves that nothing refused was
 * applied and nothing was applied twice.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { type RunningServer, startServer } from './helpers/server.js';
import { STORE_KINDS } from './helpers/stores.js';

const MERGES = 1000;
const RECORDS = 5;
const json = { 'content-type': 'application/json' };

for (const kind of STORE_KINDS) {
  describe(`concurrent merges through two processes (${kind.name})`, () => {
    it(`${MERGES} merges of distinct fields into ${RECORDS} records, all at once: none lost`, async (t) => {
      const db = await kind.create();
      const env = { DATABASE_URL: db.url, RATE_LIMIT_MAX: '0' };
      const servers = await Promise.all([startServer(env), startServer(env)]);
      const via = (i: number) => servers[i % 2] as RunningServer;
      let refused = 0;
      try {
        const ids: number[] = [];
        for (let r = 0; r < RECORDS; r++) {
          const response = await fetch(`${via(r).url}/product/`, {
            method: 'POST',
            headers: json,
            body: JSON.stringify({ r }),
          });
          ids.push(((await response.json()) as { id: number }).id);
        }
        const statuses = await Promise.all(
          Array.from({ length: MERGES }, async (_, i) => {
            const id = ids[i % RECORDS] as number;
            // PUT, PATCH and PUT tunnelled through POST, alternately, on alternate processes.
            const method = ['PUT', 'PATCH', 'POST'][i % 3] as string;
            const response = await retrying(
              () =>
                fetch(`${via(i >> 1).url}/product/${id}/`, {
                  method,
                  headers: method === 'POST' ? { ...json, 'X-HTTP-Method-Override': 'PUT' } : json,
                  body: JSON.stringify({ [`f${i}`]: { i, on: id } }),
                }),
              () => refused++,
            );
            await response.arrayBuffer();
            return response.status;
          }),
        );
        assert.deepEqual(
          statuses.filter((status) => status !== 200),
          [],
          'every merge was acknowledged',
        );
        for (const [r, id] of ids.entries()) {
          const response = await retrying(() => fetch(`${via(r + 1).url}/product/${id}/`));
          assert.equal(response.status, 200);
          const record = (await response.json()) as Record<string, unknown>;
          const fields = Object.keys(record).filter((key) => /^f\d+$/.test(key));
          assert.equal(fields.length, MERGES / RECORDS, `record ${id} has every field sent to it`);
          for (const field of fields) assert.deepEqual(record[field], { i: Number(field.slice(1)), on: id });
          assert.equal(record.r, r, 'the field it was created with survived');
          // One version per merge: none applied twice, none lost between read and write.
          assert.equal(response.headers.get('etag'), `"${id}-${1 + MERGES / RECORDS}"`);
        }
      } finally {
        const exits = [];
        for (const server of servers) exits.push(await server.stop());
        await db.drop();
        assert.deepEqual(exits, [0, 0], 'both processes stop cleanly');
      }
      // Counted once the processes have exited, when their logs are complete.
      const served = servers.map((s) => s.output.filter((line) => line.includes('"request completed"')).length);
      assert.ok(
        served.every((n) => n >= MERGES / 2),
        `each process took its half: ${served.join(', ')}`,
      );
      t.diagnostic(
        `${MERGES} merges acknowledged and found; ${refused} refusals (503) retried; ` +
          `requests served per process: ${served.join(', ')}`,
      );
    });
  });
}

/** Sends a request again while it is refused with 503 and Retry-After (a shorter wait than asked, and at most 100 times). */
async function retrying(send: () => Promise<Response>, onRefused: () => void = () => {}): Promise<Response> {
  for (let attempt = 0; ; attempt++) {
    const response = await send();
    if (response.status !== 503 || !response.headers.get('retry-after') || attempt === 100) return response;
    await response.arrayBuffer();
    onRefused();
    await sleep(20 + Math.random() * 80);
  }
}
