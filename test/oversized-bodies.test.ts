/**
 * Bodies over BODY_LIMIT, sent as clients send them, on both stores: the client reads the
 * `413` problem rather than a reset connection, and one that keeps sending far past the
 * limit is cut off.
 */
import assert from 'node:assert/strict';
import { once } from 'node:events';
import { connect } from 'node:net';
import { after, before, describe, it } from 'node:test';
import type { FastifyInstance } from 'fastify';
import { defaultConfig } from '../src/config/index.js';
import { buildApp } from '../src/http/app.js';
import { LINGER_BYTES } from '../src/http/plugins/lingering-close.js';
import { STORE_KINDS, type TestDatabase } from './helpers/stores.js';

for (const kind of STORE_KINDS) {
  describe(`bodies over the limit (${kind.name})`, () => {
    let db: TestDatabase;
    let app: FastifyInstance;
    let origin = '';

    before(async () => {
      db = await kind.create();
      app = await buildApp({
        config: defaultConfig({ databaseUrl: db.url, maxEventLoopDelay: 0, rateLimitMax: 0 }),
        logStream: false,
      });
      origin = await app.listen({ host: '127.0.0.1', port: 0 });
    });
    after(async () => {
      await app?.close();
      await db?.drop();
    });

    it("reaches Node's fetch as the 413 problem, 20 times in 20", async () => {
      const body = JSON.stringify({ name: 'x'.repeat(2 * 1024 * 1024) });
      for (let i = 0; i < 20; i++) {
        const response = await fetch(`${origin}/user/`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body,
        });
        assert.equal(response.status, 413);
        assert.match(((await response.json()) as { type: string }).type, /\/payload-too-large$/);
      }
      const listed = await fetch(`${origin}/users/`);
      assert.deepEqual(await listed.json(), [], 'nothing was written');
    });

    it('reads and throws away a bounded part of the rest, then closes', async () => {
      const socket = connect(Number(new URL(origin).port), '127.0.0.1');
      await once(socket, 'connect');
      let answer = '';
      socket.on('data', (chunk: Buffer) => {
        answer += chunk.toString('latin1');
      });
      socket.on('error', () => {});
      const declared = 4 * LINGER_BYTES;
      socket.write(
        `POST /user/ HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: ${declared}\r\n\r\n`,
      );
      const chunk = Buffer.alloc(1024 * 1024, 'a');
      let sent = 0;
      let closed = false;
      // A reset, not an orderly end, once the server stops reading: 'error' comes, then 'close'.
      const gone = new Promise<void>((resolve) =>
        socket.once('close', () => {
          closed = true;
          resolve();
        }),
      );
      const drained = () => new Promise<void>((resolve) => socket.once('drain', resolve));
      while (!closed && sent < declared) {
        sent += chunk.length;
        if (!socket.write(chunk)) await Promise.race([drained(), gone]);
      }
      await gone;
      assert.match(answer, /^HTTP\/1\.1 413 /);
      assert.ok(sent < declared, `the server read all ${sent} bytes`);
    });
  });
}
