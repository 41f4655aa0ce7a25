/**
 * Slow clients against the real process over real sockets: connections that dribble their
 * headers or body never stop others from being served, and are cut off at the configured
 * timeouts with a problem document; idle keep-alive connections are closed; bytes that are
 * not HTTP get a problem too.
 */
import assert from 'node:assert/strict';
import { once } from 'node:events';
import { connect, type Socket } from 'node:net';
import { describe, it } from 'node:test';
import { parseResponse, rawExchange } from './helpers/raw-http.js';
import { type RunningServer, startServer } from './helpers/server.js';
import { STORE_KINDS } from './helpers/stores.js';

const SLOW_CLIENTS = 200;
const DRIP_EVERY_MS = 100;
const TIMEOUTS = { HEADERS_TIMEOUT: '2000', REQUEST_TIMEOUT: '2500', KEEP_ALIVE_TIMEOUT: '500' };

interface SlowClient {
  socket: Socket;
  /** What it means to send, and how many of those bytes it has sent so far. */
  bytes: Buffer;
  sent: number;
  /** What the server sent back before it closed the connection. */
  closed: Promise<Buffer>;
}

/**
 * Opens connections that each send `text` one byte every DRIP_EVERY_MS (the first `head`
 * bytes at once). Resolves once all are connected.
 */
async function dribble(port: number, texts: string[], head = 0): Promise<{ clients: SlowClient[]; stop(): void }> {
  const clients = await Promise.all(
    texts.map(
      (text) =>
        new Promise<SlowClient>((resolve) => {
          const bytes = Buffer.from(text, 'latin1');
          const received: Buffer[] = [];
          const socket = connect(port, '127.0.0.1');
          const client: SlowClient = {
            socket,
            bytes,
            sent: 0,
            closed: new Promise((done) => socket.on('close', () => done(Buffer.concat(received)))),
          };
          socket.on('data', (chunk: Buffer) => received.push(chunk));
          socket.on('error', () => {});
          socket.once('connect', () => {
            socket.write(bytes.subarray(0, head));
            client.sent = head;
            resolve(client);
          });
        }),
    ),
  );
  const timer = setInterval(() => {
    for (const client of clients) {
      if (client.socket.destroyed || client.sent >= client.bytes.length) continue;
      client.socket.write(client.bytes.subarray(client.sent, client.sent + 1));
      client.sent++;
    }
  }, DRIP_EVERY_MS);
  return { clients, stop: () => clearInterval(timer) };
}

/**
 * Asserts that the server closed the connection before the client was done, answering 408
 * with a problem. Returns whether the answer arrived: the server closes while the client
 * is still sending, so the client's kernel may get a reset and drop the answer unread.
 */
async function assertCutOff(client: SlowClient): Promise<boolean> {
  const received = await client.closed;
  assert.ok(client.sent < client.bytes.length, `cut off after ${client.sent} of ${client.bytes.length} bytes`);
  if (received.length === 0) return false;
  const response = parseResponse(received);
  assert.equal(response?.status, 408, `a 408 answer, not ${JSON.stringify(received.toString('latin1'))}`);
  assert.match(String(response?.headers['content-type']), /^application\/problem\+json/);
  assert.equal(JSON.parse(String(response?.body)).type, '/problems/request-timeout');
  return true;
}

for (const kind of STORE_KINDS) {
  describe(`slow clients on real sockets (${kind.name})`, () => {
    it(`${SLOW_CLIENTS} connections dribbling headers and 20 dribbling bodies: others are served, and all are cut off`, async (t) => {
      const db = await kind.create();
      const server = await startServer({ DATABASE_URL: db.url, ...TIMEOUTS });
      const port = Number(new URL(server.url).port);
      const header = (i: number) =>
        `GET /users/ HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow-${i}: ${'a'.repeat(200)}\r\n\r\n`;
      const head =
        'POST /user/ HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: 200\r\n\r\n';
      const slowHeaders = await dribble(
        port,
        Array.from({ length: SLOW_CLIENTS }, (_, i) => header(i)),
      );
      const slowBodies = await dribble(port, Array(20).fill(`${head}{"a":"${'b'.repeat(192)}"}`), head.length);
      const slow = [...slowHeaders.clients, ...slowBodies.clients];
      try {
        const served = await serveNormally(server);
        const stillOpen = slow.filter((c) => !c.socket.destroyed).length;
        assert.deepEqual(served, { created: 20, read: 20 });
        assert.equal(stillOpen, slow.length, 'every slow client was holding its connection meanwhile');
        let answered = 0;
        for (const client of slow) if (await assertCutOff(client)) answered++;
        assert.ok(answered > 0, 'the cut-off connections were answered 408');
        const users = (await (await fetch(`${server.url}/users/`)).json()) as unknown[];
        assert.equal(users.length, 20, 'no cut-off request wrote anything');
        t.diagnostic(
          `${slow.length} slow connections cut off (${answered} read the 408); 40 requests served meanwhile`,
        );

        const request = 'GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n';
        const idle = await dribble(port, [request], request.length);
        const answer = parseResponse(await (idle.clients[0] as SlowClient).closed);
        idle.stop();
        assert.equal(answer?.status, 200, 'answered, then closed by the server once idle');

        const garbage = await rawExchange(port, Buffer.from('NOT HTTP AT ALL\r\n\r\n'));
        assert.equal(garbage?.status, 400);
        assert.equal(JSON.parse(String(garbage?.body)).type, '/problems/bad-request');
        const huge = await rawExchange(port, Buffer.from(`GET / HTTP/1.1\r\nX-Big: ${'a'.repeat(20_000)}\r\n\r\n`));
        assert.equal(huge?.status, 431);
        assert.equal(JSON.parse(String(huge?.body)).type, '/problems/headers-too-large');
      } finally {
        slowHeaders.stop();
        slowBodies.stop();
        for (const client of slow) client.socket.destroy();
        assert.equal(await server.stop(), 0);
        await db.drop();
      }
    });
  });
}

for (const kind of STORE_KINDS) {
  describe(`a client that never finishes its request (${kind.name})`, () => {
    it('holds a shutdown no longer than SHUTDOWN_TIMEOUT', async () => {
      const db = await kind.create();
      const server = await startServer({ DATABASE_URL: db.url, SHUTDOWN_TIMEOUT: '200' });
      const socket = connect(Number(new URL(server.url).port), '127.0.0.1');
      try {
        // The body never comes: a shutdown would wait for it until REQUEST_TIMEOUT (30 s).
        const head = 'POST /user/ HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n';
        socket.write(`${head}Content-Length: 100\r\nExpect: 100-continue\r\n\r\n`);
        const [answer] = (await once(socket, 'data')) as [Buffer];
        assert.match(answer.toString('latin1'), /^HTTP\/1\.1 100 Continue/);
        assert.equal(await server.stop(), 0, 'it exits, and cleanly');
        assert.ok(server.output.some((line) => line.includes('closing the connections still open')));
      } finally {
        socket.destroy();
        await db.drop();
      }
    });
  });
}

/** Twenty creates and twenty reads, ten at a time, as a well-behaved client makes them. */
async function serveNormally(server: RunningServer) {
  const served = { created: 0, read: 0 };
  for (let batch = 0; batch < 2; batch++) {
    const created = await Promise.all(
      Array.from({ length: 10 }, (_, i) =>
        fetch(`${server.url}/user/`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ batch, i }),
        }),
      ),
    );
    served.created += created.filter((r) => r.status === 201).length;
    const ids = await Promise.all(created.map(async (r) => ((await r.json()) as { id: number }).id));
    const reads = await Promise.all(ids.map((id) => fetch(`${server.url}/user/${id}/`)));
    for (const read of reads) await read.arrayBuffer();
    served.read += reads.filter((r) => r.status === 200).length;
  }
  return served;
}
