/**
 * The client side of bench/realtime.ts, kept light so that the client is not what is
 * measured: plain node:http, one connection per subscriber, and of each event only the
 * record's id read (a regular expression over the event's text, no JSON parsed), its
 * arrival noted with `performance.now()`. The writer runs in the same process, so one clock
 * times the POSTs and the arrivals.
 */
import { Agent, get, type IncomingMessage, request } from 'node:http';

/** A restock (`GET /products/events/`) or a PocketBase (`GET /api/realtime`, subscribed to `products`). */
export type FeedKind = 'restock' | 'pocketbase';

export interface FeedServer {
  kind: FeedKind;
  url: string;
  /** The server's process, whose CPU time a round reads. */
  pid: number;
}

/** One subscriber: when each record's event reached it (by the record's id, as text). */
export interface Subscriber {
  readonly arrivals: Map<string, number>;
  close(): void;
}

/**
 * The record's id in an event or an answer: the first `"id":` of the text, restock's number
 * (`{"id":7,…}`) or PocketBase's string (`{"action":"create","record":{…,"id":"abc",…}}`).
 * The SSE `id:` line (unquoted) and PocketBase's `"collectionId"` and `"clientId"` do not match.
 */
const RECORD_ID = /"id":"?([^",}]+)/;
const CLIENT_ID = /"clientId":"([^"]+)"/;

/** Splits a stream of server-sent events into events (blocks ending in a blank line). */
function onEvents(response: IncomingMessage, each: (event: string, at: number) => void): void {
  response.setEncoding('utf8');
  let buffer = '';
  response.on('data', (chunk: string) => {
    const at = performance.now();
    buffer += chunk;
    for (let end = buffer.indexOf('\n\n'); end >= 0; end = buffer.indexOf('\n\n')) {
      each(buffer.slice(0, end), at);
      buffer = buffer.slice(end + 2);
    }
  });
}

/** Opens one subscriber on a connection of its own; resolves once it follows the products. */
export function subscribe(server: FeedServer): Promise<Subscriber> {
  const arrivals = new Map<string, number>();
  const path = server.kind === 'restock' ? '/products/events/' : '/api/realtime';
  return new Promise((resolve, reject) => {
    const req = get(`${server.url}${path}`, { agent: false }, (response) => {
      if (response.statusCode !== 200) {
        reject(new Error(`${path} answered ${response.statusCode}`));
        response.resume();
        return;
      }
      const subscriber = { arrivals, close: () => req.destroy() };
      // restock follows the collection from its answer on; PocketBase once the client's id
      // (its first event) has been subscribed to the collection.
      if (server.kind === 'restock') resolve(subscriber);
      onEvents(response, (event, at) => {
        const id = RECORD_ID.exec(event)?.[1];
        if (id !== undefined) {
          if (!arrivals.has(id)) arrivals.set(id, at);
          return;
        }
        const clientId = server.kind === 'pocketbase' ? CLIENT_ID.exec(event)?.[1] : undefined;
        if (clientId !== undefined)
          post(server.url, '/api/realtime', { clientId, subscriptions: ['products'] }).then(
            ({ status }) =>
              status === 204 ? resolve(subscriber) : reject(new Error(`POST /api/realtime answered ${status}`)),
            reject,
          );
      });
    });
    req.on('error', reject);
  });
}

const agent = new Agent({ keepAlive: true });

export function closeWriter(): void {
  agent.destroy();
}

/** What a POST answered: its status, the record's id, and when the whole answer had arrived. */
interface Answer {
  status: number;
  id: string | undefined;
  at: number;
}

function post(url: string, path: string, body: unknown): Promise<Answer> {
  const text = JSON.stringify(body);
  const headers = { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) };
  return new Promise((resolve, reject) => {
    const req = request(`${url}${path}`, { method: 'POST', agent, headers }, (response) => {
      let answer = '';
      response.setEncoding('utf8');
      response.on('data', (chunk: string) => {
        answer += chunk;
      });
      response.on('end', () =>
        resolve({ status: response.statusCode ?? 0, id: RECORD_ID.exec(answer)?.[1], at: performance.now() }),
      );
    });
    req.on('error', reject);
    req.end(text);
  });
}

/**
 * One create: when its POST was sent, when its answer arrived, its status, and its record's
 * id (none when it was refused: restock's load shedding answers `503` when its event loop
 * lags, which a machine busy with other work can bring about).
 */
export interface Create {
  sent: number;
  answered: number;
  status: number;
  id: string | undefined;
}

/** The creates that made a record, whose events the subscribers should get. */
export const made = (creates: readonly Create[]) =>
  creates.filter((c): c is Create & { id: string } => c.id !== undefined);

/**
 * Sends `count` creates of a product, one every `intervalMs`, open loop (create k leaves at
 * its moment whatever the ones before are doing); the time of each is taken just before its
 * request is made.
 */
export async function pacedCreates(server: FeedServer, count: number, intervalMs: number, tag: string) {
  const path = server.kind === 'restock' ? '/product/' : '/api/collections/products/records';
  const started = performance.now();
  const creates: Promise<Create>[] = [];
  for (let k = 0; k < count; k++) {
    const wait = started + k * intervalMs - performance.now();
    if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
    const sent = performance.now();
    creates.push(
      post(server.url, path, { name: `${tag} ${k}`, price: k % 100 }).then(({ status, id, at }) => ({
        sent,
        answered: at,
        status,
        id: status === 200 || status === 201 ? id : undefined,
      })),
    );
  }
  return Promise.all(creates);
}

/**
 * Waits until every subscriber has every create's event, or `limitMs` has passed since the
 * call (a lost event must not hang the bench: the round then reports what arrived).
 */
export async function delivered(subscribers: readonly Subscriber[], creates: readonly Create[], limitMs = 10_000) {
  const until = performance.now() + limitMs;
  const ids = made(creates).map((c) => c.id);
  const all = () => subscribers.every((s) => ids.every((id) => s.arrivals.has(id)));
  while (!all() && performance.now() < until) await new Promise((resolve) => setTimeout(resolve, 20));
}

/** Opens `count` subscribers, a few at a time, so that a burst of connections is not refused. */
export async function subscribeAll(server: FeedServer, count: number): Promise<Subscriber[]> {
  const subscribers: Subscriber[] = [];
  while (subscribers.length < count) {
    const batch = Math.min(50, count - subscribers.length);
    subscribers.push(...(await Promise.all(Array.from({ length: batch }, () => subscribe(server)))));
  }
  return subscribers;
}
