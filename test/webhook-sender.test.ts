/**
 * One delivery (src/records/webhooks/webhook-sender.ts) against real receivers on
 * 127.0.0.1: signatures a Standard Webhooks library verifies (both secrets during a
 * rotation's overlap), 2xx alone a success, redirects never followed, a huge answer cut off,
 * refused connections and silent receivers as failures, and private addresses refused
 * unless allowed, by the URL or by what its name resolves to.
 */
import assert from 'node:assert/strict';
import { once } from 'node:events';
import { readFileSync } from 'node:fs';
import { createServer, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, describe, it } from 'node:test';
import { Webhook } from 'standardwebhooks';
import { newWebhookSecret, WebhookSender } from '../src/records/webhooks/index.js';
import { silentServer } from './helpers/silent-server.js';
import { type Received, webhookReceiver } from './helpers/webhook-receiver.js';

const OPTIONS = { allowPrivate: true, timeoutMs: 15_000, connectTimeoutMs: 5_000, userAgent: 'restock/test' };
const MESSAGE = { messageId: 'evt_orders_1', body: '{"type":"orders.created","data":{"id":1,"é":"ü"}}' };
const SECRET = newWebhookSecret();
const secrets = { current: SECRET, previous: null, previousUntil: null };

const sender = new WebhookSender(OPTIONS);
after(() => sender.close());

const verifies = (secret: string, { body, headers }: Received) => {
  try {
    new Webhook(secret).verify(body, headers as Record<string, string>);
    return true;
  } catch {
    return false;
  }
};

describe('webhook sender', () => {
  it('posts a signed message, and a 2xx is a success', async () => {
    const receiver = await webhookReceiver();
    const outcome = await sender.send({ url: receiver.url, secrets, key: 1 }, MESSAGE);
    assert.deepEqual(outcome, { ok: true, status: 204 });
    const [got] = receiver.received as [Received];
    assert.equal(got.body, MESSAGE.body);
    assert.equal(got.headers['content-type'], 'application/json');
    assert.equal(got.headers['user-agent'], 'restock/test');
    assert.equal(got.headers['webhook-id'], 'evt_orders_1');
    assert.ok(verifies(SECRET, got));
    assert.equal(verifies(newWebhookSecret(), got), false);
    // Kept alive: the next message goes over the same connection, until the webhook is forgotten.
    await sender.send({ url: receiver.url, secrets, key: 1 }, MESSAGE);
    assert.equal(receiver.connections(), 1);
    sender.forget(1);
    await sender.send({ url: receiver.url, secrets, key: 1 }, MESSAGE);
    assert.equal(receiver.connections(), 2);
    await receiver.close();
  });

  it('signs with both secrets while a rotation overlaps, then with the new one alone', async () => {
    const receiver = await webhookReceiver();
    const [older, newer] = [newWebhookSecret(), newWebhookSecret()];
    const overlap = { current: newer, previous: older, previousUntil: Date.now() + 60_000 };
    assert.equal((await sender.send({ url: receiver.url, secrets: overlap, key: 2 }, MESSAGE)).ok, true);
    const over = { ...overlap, previousUntil: Date.now() - 1 };
    assert.equal((await sender.send({ url: receiver.url, secrets: over, key: 2 }, MESSAGE)).ok, true);
    const [during, later] = receiver.received as [Received, Received];
    assert.equal(String(during.headers['webhook-signature']).split(' ').length, 2);
    assert.ok(verifies(older, during) && verifies(newer, during), 'a receiver with either secret verifies');
    assert.equal(verifies(older, later), false);
    assert.ok(verifies(newer, later));
    await receiver.close();
  });

  it('fails on any other status, quoting the start of the answer on one line', async () => {
    const receiver = await webhookReceiver((_, response) =>
      response.writeHead(500).end(`database down\r\nretry later ${'x'.repeat(100_000)}`),
    );
    const outcome = await sender.send({ url: receiver.url, secrets, key: 3 }, MESSAGE);
    assert.equal(outcome.ok, false);
    assert.equal(outcome.status, 500);
    const error = outcome.ok ? '' : outcome.error;
    assert.match(error, /^HTTP 500: database down retry later x+…$/);
    assert.ok(error.length < 250);
    assert.equal(error.includes(SECRET.slice(6)), false);
    await receiver.close();
  });

  it('never follows a redirect', async () => {
    const elsewhere = await webhookReceiver();
    const receiver = await webhookReceiver((_, response) => response.writeHead(302, { location: elsewhere.url }).end());
    const outcome = await sender.send({ url: receiver.url, secrets, key: 4 }, MESSAGE);
    assert.deepEqual(outcome, {
      ok: false,
      status: 302,
      error: `redirects are not followed (302 to ${elsewhere.url})`,
    });
    assert.equal(elsewhere.connections(), 0);
    await Promise.all([receiver.close(), elsewhere.close()]);
  });

  it('reads an answer up to its bound, then closes the connection', async () => {
    const total = 100 * 1024 * 1024;
    let cut: Promise<{ finished: boolean; written: number }> | undefined;
    const receiver = await webhookReceiver((_, response) => {
      cut = stream(response, total);
    });
    const bounded = new WebhookSender({ ...OPTIONS, maxAnswerBytes: 64 * 1024 });
    const outcome = await bounded.send({ url: receiver.url, secrets, key: 5 }, MESSAGE);
    assert.deepEqual(outcome, { ok: true, status: 200 });
    const { finished, written } = await (cut as NonNullable<typeof cut>);
    assert.equal(finished, false, 'the receiver saw its answer cut off');
    assert.ok(written < total, `wrote ${written} of ${total}`);
    bounded.close();
    await receiver.close();
  });

  it('makes a request once more when the kept-alive socket it went out on was closed', async () => {
    const served = new WeakSet<object>();
    let connections = 0;
    const server = createServer((request, response) => {
      // The second request on a connection: closed unanswered, as a receiver closing an idle socket does.
      if (served.has(request.socket)) return void request.socket.destroy();
      served.add(request.socket);
      request.resume().on('end', () => response.writeHead(200).end());
    }).on('connection', () => {
      connections += 1;
    });
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
    assert.deepEqual(await sender.send({ url, secrets, key: 11 }, MESSAGE), { ok: true, status: 200 });
    assert.deepEqual(await sender.send({ url, secrets, key: 11 }, MESSAGE), { ok: true, status: 200 });
    assert.equal(connections, 2);
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  });

  it('fails with a short line when the connection is refused', async () => {
    const server = createServer().listen(0, '127.0.0.1');
    await once(server, 'listening');
    const { port } = server.address() as AddressInfo;
    await new Promise((resolve) => server.close(resolve));
    const outcome = await sender.send({ url: `http://127.0.0.1:${port}/`, secrets, key: 6 }, MESSAGE);
    assert.deepEqual(outcome, { ok: false, status: null, error: 'connection refused' });
  });

  it('gives up on a receiver that never answers', async () => {
    const silent = await silentServer();
    const hasty = new WebhookSender({ ...OPTIONS, timeoutMs: 200 });
    const outcome = await hasty.send({ url: silent.url, secrets, key: 7 }, MESSAGE);
    assert.deepEqual(outcome, { ok: false, status: null, error: 'timed out after 200 ms' });
    hasty.close();
    await silent.close();
  });

  it('refuses private addresses unless allowed, connecting to none', async () => {
    const receiver = await webhookReceiver();
    const strict = new WebhookSender({ ...OPTIONS, allowPrivate: false });
    const outcome = await strict.send({ url: receiver.url, secrets, key: 8 }, MESSAGE);
    assert.deepEqual(outcome, { ok: false, status: null, error: 'address refused: 127.0.0.1 is loopback' });
    const named = await strict.send({ url: `http://localhost:${receiver.port}/`, secrets, key: 8 }, MESSAGE);
    assert.equal(named.ok ? '' : named.error, 'address refused: localhost is loopback');
    assert.equal(receiver.connections(), 0);
    strict.close();
    await receiver.close();
  });

  // A name the URL check cannot judge, resolved by the socket's lookup: /etc/hosts' (no DNS here).
  const loopbackName = hostsName();
  it('refuses a name that resolves to a private address', { skip: loopbackName === undefined }, async () => {
    const receiver = await webhookReceiver();
    const url = `http://${loopbackName}:${receiver.port}/`;
    const strict = new WebhookSender({ ...OPTIONS, allowPrivate: false });
    const outcome = await strict.send({ url, secrets, key: 9 }, MESSAGE);
    assert.deepEqual(outcome, { ok: false, status: null, error: 'address refused: 127.0.0.1 is loopback' });
    assert.equal(receiver.connections(), 0);
    assert.deepEqual(await sender.send({ url, secrets, key: 9 }, MESSAGE), { ok: true, status: 204 });
    strict.close();
    await receiver.close();
  });

  it('fails, quoting nothing of it, when the secret cannot sign', async () => {
    const outcome = await sender.send(
      { url: 'http://127.0.0.1:9/', secrets: { ...secrets, current: 'whsec_%%%' }, key: 10 },
      MESSAGE,
    );
    assert.deepEqual(outcome, {
      ok: false,
      status: null,
      error: 'the webhook secret cannot sign (not a whsec_ secret)',
    });
  });
});

/** Writes `total` bytes as fast as the client reads them; resolves when the response closes. */
function stream(response: ServerResponse, total: number): Promise<{ finished: boolean; written: number }> {
  const chunk = Buffer.alloc(64 * 1024, 'a');
  let written = 0;
  response.writeHead(200, { 'content-length': String(total) });
  const more = () => {
    while (written < total && !response.destroyed) {
      written += chunk.length;
      if (!response.write(chunk)) return void response.once('drain', more);
    }
    if (written >= total) response.end();
  };
  more();
  return new Promise((resolve) =>
    response.once('close', () => resolve({ finished: response.writableFinished, written })),
  );
}

/** A name other than localhost that /etc/hosts gives 127.0.0.1, if there is one. */
function hostsName(): string | undefined {
  let hosts = '';
  try {
    hosts = readFileSync('/etc/hosts', 'utf8');
  } catch {
    return undefined;
  }
  for (const line of hosts.split('\n')) {
    const [address, ...names] = line.replace(/#.*/, '').trim().split(/\s+/);
    if (address !== '127.0.0.1') continue;
    const name = names.find((n) => n !== 'localhost' && !n.endsWith('.localhost') && /^[a-z0-9.-]+$/i.test(n));
    if (name) return name;
  }
  return undefined;
}
