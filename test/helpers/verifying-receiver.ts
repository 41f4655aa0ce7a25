/**
 * A webhook receiver as an app's other service would run one: a plain node:http server on
 * 127.0.0.1 that verifies every delivery's signature with the standardwebhooks library,
 * answers as the test says (a status, after whatever the test awaits), and keeps what it got.
 * Tests wait for what it receives, never for a clock.
 */
import { once } from 'node:events';
import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Webhook } from 'standardwebhooks';

export interface Received {
  /** The `webhook-id` header. */
  readonly id: string;
  readonly body: string;
  readonly payload: { type: string; timestamp: string; data: Record<string, unknown>; previous?: object };
  /** Whether the signature verified with the receiver's secret. */
  readonly verified: boolean;
  /** The status it was answered with. */
  status?: number;
}

export type Answer = (delivery: Received) => number | Promise<number>;

export interface Receiver {
  readonly url: string;
  /** Every delivery, in the order they arrived, whatever it was answered. */
  readonly received: Received[];
  /** Those answered 2xx. */
  readonly accepted: Received[];
  /** Ids that arrived while a delivery of the same id was still being answered. */
  readonly overlaps: string[];
  secret: string;
  answer: Answer;
  /** Resolves once `condition` holds, looking each time a delivery is answered. */
  until(condition: () => boolean): Promise<void>;
  close(): Promise<void>;
}

export async function startReceiver(answer: Answer = () => 204): Promise<Receiver> {
  const received: Received[] = [];
  const accepted: Received[] = [];
  const overlaps: string[] = [];
  const underway = new Set<string>();
  const waiters = new Set<() => void>();
  const server = createServer(async (request, response) => {
    const body = await text(request);
    const headers = {
      'webhook-id': String(request.headers['webhook-id']),
      'webhook-timestamp': String(request.headers['webhook-timestamp']),
      'webhook-signature': String(request.headers['webhook-signature']),
    };
    const delivery: Received = {
      id: headers['webhook-id'],
      body,
      payload: JSON.parse(body) as Received['payload'],
      verified: verifies(receiver.secret, body, headers),
    };
    if (underway.has(delivery.id)) overlaps.push(delivery.id);
    underway.add(delivery.id);
    received.push(delivery);
    try {
      delivery.status = await receiver.answer(delivery);
    } catch {
      delivery.status = 500;
    }
    underway.delete(delivery.id);
    if (delivery.status >= 200 && delivery.status < 300) accepted.push(delivery);
    response.writeHead(delivery.status).end();
    for (const wake of waiters) wake();
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  const receiver: Receiver = {
    url: `http://127.0.0.1:${port}/hook`,
    received,
    accepted,
    overlaps,
    secret: '',
    answer,
    async until(condition) {
      while (!condition()) {
        await new Promise<void>((resolve) => {
          const wake = () => {
            waiters.delete(wake);
            resolve();
          };
          waiters.add(wake);
        });
      }
    },
    async close() {
      server.closeAllConnections();
      server.close();
      await once(server, 'close');
    },
  };
  return receiver;
}

function verifies(secret: string, body: string, headers: Record<string, string>): boolean {
  try {
    new Webhook(secret).verify(body, headers);
    return true;
  } catch {
    return false;
  }
}

async function text(request: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}
