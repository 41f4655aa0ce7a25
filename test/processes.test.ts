/**
 * Many processes on one database (SPEC §10): two separate restock processes, as behind a
 * load balancer, and one restock with `--workers`, on every store. No write may be lost,
 * duplicated or applied to the wrong record.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { type RunningServer, startServer, waitForWorkers } from './helpers/server.js';
import { STORE_KINDS } from './helpers/stores.js';

const json = { 'content-type': 'application/json' };

async function post(server: RunningServer, path: string, fields: object, method = 'POST') {
  const response = await fetch(`${server.url}${path}`, { method, headers: json, body: JSON.stringify(fields) });
  const text = await response.text();
  assert.ok(response.status < 300, `${method} ${path}: ${response.status} ${text}`);
  return JSON.parse(text) as Record<string, unknown> & { id: number };
}

async function listAll(server: RunningServer, plural: string) {
  const records: (Record<string, unknown> & { id: number })[] = [];
  let url: string | undefined = `${server.url}/${plural}/?limit=1000`;
  while (url) {
    const response: Response = await fetch(url);
    records.push(...((await response.json()) as typeof records));
    const next = /<([^>]+)>; rel="next"/.exec(response.headers.get('link') ?? '')?.[1];
    url = next ? `${server.url}${next}` : undefined;
  }
  return records;
}

for (const kind of STORE_KINDS) {
  describe(`many processes on one database (${kind.name})`, () => {
    it('several instances started at once on a new database all start', async () => {
      // On SQLite they race to put the new file in WAL mode (once, "database is locked").
      for (let round = 0; round < 2; round++) {
        const db = await kind.create();
        try {
          const servers = await Promise.all([1, 2, 3].map(() => startServer({ DATABASE_URL: db.url })));
          const made = await Promise.all(servers.map((server, i) => post(server, '/user/', { i })));
          assert.equal(new Set(made.map((record) => record.id)).size, 3);
          for (const server of servers) assert.equal(await server.stop(), 0);
        } finally {
          await db.drop();
        }
      }
    });

    it('two instances: concurrent creates get distinct ids, concurrent merges all land where sent', async () => {
      const db = await kind.create();
      const servers = [await startServer({ DATABASE_URL: db.url }), await startServer({ DATABASE_URL: db.url })];
      const via = (i: number) => servers[i % 2] as RunningServer;
      try {
        const created = await Promise.all(Array.from({ length: 100 }, (_, i) => post(via(i), '/user/', { i })));
        assert.equal(new Set(created.map((r) => r.id)).size, 100, 'no id handed out twice');
        const stored = await listAll(via(1), 'users');
        assert.equal(stored.length, 100, 'every create stored once');
        for (const record of created) {
          assert.deepEqual(
            stored.find((r) => r.id === record.id),
            record,
          );
        }

        const targets = await Promise.all(Array.from({ length: 4 }, (_, k) => post(via(k), '/product/', { k })));
        await Promise.all(
          Array.from({ length: 200 }, (_, i) => {
            const target = targets[i % 4] as { id: number };
            return post(via(i >> 1), `/product/${target.id}/`, { [`f${i}`]: i }, i % 3 ? 'PUT' : 'PATCH');
          }),
        );
        for (const [k, target] of targets.entries()) {
          const record = (await (await fetch(`${via(k).url}/product/${target.id}/`)).json()) as Record<string, unknown>;
          const fields = Object.keys(record).filter((key) => key.startsWith('f'));
          assert.equal(fields.length, 50, `product ${k} has the 50 fields sent to it`);
          for (const field of fields) assert.equal(Number(field.slice(1)) % 4, k, `${field} landed on product ${k}`);
          assert.equal(record.k, k);
        }
      } finally {
        for (const server of servers) assert.equal(await server.stop(), 0);
        await db.drop();
      }
    });

    it('--workers 2: two processes share the port and the database, and stop together', async () => {
      const db = await kind.create();
      const server = await startServer({ DATABASE_URL: db.url, WORKERS: '2' });
      try {
        await waitForWorkers(server, 2);
        const created = await Promise.all(
          Array.from({ length: 100 }, (_, i) =>
            // A fresh connection each time, so that the kernel spreads them over the workers.
            fetch(`${server.url}/user/`, {
              method: 'POST',
              headers: { ...json, connection: 'close' },
              body: JSON.stringify({ i }),
            }).then((r) => r.json() as Promise<{ id: number }>),
          ),
        );
        assert.equal(new Set(created.map((r) => r.id)).size, 100);
        assert.equal((await listAll(server, 'users')).length, 100);
        const logs = server.output.map((line) => JSON.parse(line) as { pid: number; msg: string });
        const servingPids = new Set(logs.filter((l) => l.msg === 'request completed').map((l) => l.pid));
        assert.equal(servingPids.size, 2, `requests were served by two processes: ${[...servingPids]}`);
      } finally {
        assert.equal(await server.stop(), 0);
        await db.drop();
      }
    });
  });
}
