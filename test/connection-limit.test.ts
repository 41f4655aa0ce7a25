/**
 * A flood of connections against a real server process with few file descriptors, on both
 * stores: past MAX_CONNECTIONS (by default the open file limit less a reserve) a connection
 * is closed as it arrives, and the process lives on to answer once the flood recedes.
 */
import assert from 'node:assert/strict';
import { once } from 'node:events';
import { connect, type Socket } from 'node:net';
import { describe, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { RESERVED_DESCRIPTORS } from '../src/http/plugins/connection-limit.js';
import { SERVER_ENTRY, startServer } from './helpers/server.js';
import { STORE_KINDS } from './helpers/stores.js';

const OPEN_FILES = 400;
const FLOOD = 600;

for (const kind of STORE_KINDS) {
  describe(`a flood of connections (${kind.name})`, () => {
    it(`refuses what passes the cap under ulimit -n ${OPEN_FILES}, and lives on`, async () => {
      const db = await kind.create();
      const server = await startServer(
        // Load shedding samples memory every second: out of descriptors, that threw and ended the process.
        { DATABASE_URL: db.url, MAX_EVENT_LOOP_DELAY: '1000' },
        ['-c', `ulimit -n ${OPEN_FILES} && exec "${process.execPath}" ${SERVER_ENTRY}`],
        { command: 'bash' },
      );
      const { port } = new URL(server.url);
      const flood: Socket[] = [];
      try {
        const created = await fetch(`${server.url}/user/`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: '{"name":"Ada"}',
        });
        assert.equal(created.status, 201);
        let closed = 0;
        for (let i = 0; i < FLOOD; i++) {
          const socket = connect(Number(port), '127.0.0.1');
          socket.on('error', () => {});
          socket.once('close', () => closed++);
          flood.push(socket);
          await once(socket, 'connect');
        }
        // Node's own fetch above keeps its connection alive: one more of the cap is taken.
        const dropped = FLOOD - (OPEN_FILES - RESERVED_DESCRIPTORS - 1);
        while (closed < dropped && server.process.exitCode === null) await sleep(10);
        assert.equal(server.process.exitCode, null, 'the server is alive');
        for (const socket of flood.splice(0, 100)) socket.destroy();
        const one = await answered(`${server.url}/user/1/`);
        assert.equal(one.status, 200);
        const metrics = await (await answered(`${server.url}/metrics`)).text();
        const count = Number(/restock_connections_dropped_total (\d+)/.exec(metrics)?.[1]);
        assert.ok(count >= dropped, `${count} dropped, at least ${dropped} expected`);
      } finally {
        for (const socket of flood) socket.destroy();
        assert.equal(await server.stop(), 0);
        await db.drop();
      }
    });
  });
}

/** The response to GET `url` once the server takes the connection (it closes those past its cap). */
async function answered(url: string): Promise<Response> {
  for (;;) {
    try {
      return await fetch(url);
    } catch {
      await sleep(10);
    }
  }
}
