/**
 * Following a change feed in a test: a real HTTP request on a connection of its own, its
 * text/event-stream parsed into events as they arrive.
 */

import { get, type IncomingMessage } from 'node:http';

export interface StreamEvent {
  id?: string;
  event: string;
  data: string;
}

export interface EventStream {
  status: number;
  /** Resolves with the next `count` events (comments left out), in order. */
  take(count: number): Promise<StreamEvent[]>;
  /** Resolves once a comment has arrived (a heartbeat). */
  comment(): Promise<string>;
  /** Events that arrived and were not taken yet. */
  pending(): StreamEvent[];
  close(): Promise<void>;
}

export async function openEventStream(url: string, headers: Record<string, string> = {}): Promise<EventStream> {
  // A connection of its own (no agent): closing the stream closes it, and nothing of it
  // lingers in a pool to hold a server that is shutting down.
  const request = get(url, { agent: false, headers: { accept: 'text/event-stream', ...headers } });
  const response = await new Promise<IncomingMessage>((resolve, reject) => {
    request.once('response', resolve);
    request.once('error', reject);
  });
  response.setEncoding('utf8');
  const events: StreamEvent[] = [];
  const comments: string[] = [];
  let waiters: (() => void)[] = [];
  const notify = () => {
    for (const waiter of waiters) waiter();
    waiters = [];
  };
  let ended = false;
  let buffer = '';
  response.on('data', (chunk: string) => {
    buffer += chunk;
    let end = buffer.indexOf('\n\n');
    while (end >= 0) {
      const block = buffer.slice(0, end);
      buffer = buffer.slice(end + 2);
      const event: StreamEvent = { event: 'message', data: '' };
      let isEvent = false;
      for (const line of block.split('\n')) {
        if (line.startsWith(':')) comments.push(line.slice(1).trim());
        else if (line.startsWith('id: ')) event.id = line.slice(4);
        else if (line.startsWith('event: ')) event.event = line.slice(7);
        else if (line.startsWith('data: ')) {
          event.data = line.slice(6);
          isEvent = true;
        }
      }
      if (isEvent) events.push(event);
      end = buffer.indexOf('\n\n');
    }
    notify();
  });
  const closed = new Promise<void>((resolve) => {
    response.once('close', () => {
      ended = true;
      notify();
      resolve();
    });
  });
  const waitFor = async (ready: () => boolean, what: string) => {
    while (!ready()) {
      if (ended) throw new Error(`the stream ended before ${what}`);
      await new Promise<void>((resolve) => waiters.push(resolve));
    }
  };
  return {
    status: response.statusCode ?? 0,
    async take(count) {
      await waitFor(() => events.length >= count, `${count} events arrived`);
      return events.splice(0, count);
    },
    async comment() {
      await waitFor(() => comments.length > 0, 'a comment arrived');
      return comments.shift() as string;
    },
    pending: () => [...events],
    async close() {
      request.destroy();
      await closed;
    },
  };
}
