/**
 * A collection's change feed for the client: restock's server-sent events read through
 * `fetch` (which, unlike the browser's EventSource, sends the API key as a header and runs
 * in Node.js too), resumed after the last event seen whenever the connection breaks.
 */

import { ProblemError } from './problem-error.js';
import type { Stored } from './stored.js';
import type { Transport } from './transport.js';

/** A change to one record; `deleted` carries the record as it was. */
export interface RecordChange<T> {
  type: 'created' | 'updated' | 'deleted';
  /** The change's number in its collection: pass it as `since` to resume after it. */
  id: number;
  record: Stored<T>;
  /** Set on a `deleted` sent because an update took the record out of the filter. */
  reason?: 'left-filter';
}

/** The feed could not resume where it was: what it missed is gone, so reload what you hold. */
export interface FeedReset {
  type: 'reset';
}

export type ChangeEvent<T> = RecordChange<T> | FeedReset;

export interface SubscribeOptions {
  /** Resume after this change's id; by default the feed starts with the next change. */
  since?: number;
  /** Ends the subscription (as `break` out of the loop does). */
  signal?: AbortSignal;
}

/** How long to wait before reconnecting, unless the server said otherwise (milliseconds). */
const RECONNECT_MS = 2000;

/** Events of the feed at `path` (a query string may carry the list's filters), reconnecting until stopped. */
export async function* followFeed<T>(
  transport: Transport,
  path: string,
  options: SubscribeOptions,
): AsyncGenerator<ChangeEvent<T>, void, undefined> {
  let lastId = options.since;
  let retryMs = RECONNECT_MS;
  const stop = new AbortController();
  const onAbort = () => stop.abort();
  options.signal?.addEventListener('abort', onAbort, { once: true });
  try {
    while (!stop.signal.aborted) {
      try {
        const headers: Record<string, string> = { accept: 'text/event-stream' };
        if (lastId !== undefined) headers['last-event-id'] = String(lastId);
        const response = await transport.send('GET', path, { headers, signal: stop.signal, streams: true });
        if (!response.body) throw new TypeError('the change feed answered without a body');
        for await (const message of messages(response.body, stop.signal)) {
          if (message.retry !== undefined) retryMs = message.retry;
          if (message.event === 'reset') yield { type: 'reset' };
          else if (isRecordEvent(message.event) && message.data !== undefined) {
            lastId = Number(message.id);
            const { reason, ...record } = JSON.parse(message.data) as Stored<T> & { reason?: 'left-filter' };
            yield { type: message.event, id: lastId, record: record as Stored<T>, ...(reason && { reason }) };
          }
        }
      } catch (error) {
        // A refusal (a ProblemError: a bad filter, a missing key) will not mend by itself.
        if (stop.signal.aborted || error instanceof ProblemError) throw error;
      }
      if (!stop.signal.aborted) await pause(retryMs, stop.signal);
    }
  } catch (error) {
    if (!stop.signal.aborted) throw error;
  } finally {
    options.signal?.removeEventListener('abort', onAbort);
    stop.abort();
  }
}

function isRecordEvent(event: string | undefined): event is RecordChange<unknown>['type'] {
  return event === 'created' || event === 'updated' || event === 'deleted';
}

interface Message {
  id?: string;
  event?: string;
  data?: string;
  retry?: number;
}

/**
 * The messages of an event stream, as the HTML standard's parsing rules read them (lines
 * end in CR, LF or CRLF; a blank line ends a message). Written here because the client's
 * only dependency is `fetch`; the well-kept parsers (eventsource-parser) would add one.
 */
async function* messages(body: ReadableStream<Uint8Array>, signal: AbortSignal): AsyncGenerator<Message> {
  const reader = body.getReader();
  const decoder = new TextDecoder();
  const release = () => void reader.cancel().catch(() => {});
  signal.addEventListener('abort', release, { once: true });
  let buffered = '';
  let message: Message = {};
  try {
    for (;;) {
      const { value, done } = await reader.read();
      if (done) return;
      buffered += decoder.decode(value, { stream: true });
      const lines = buffered.split(/\r\n|\r(?!$)|\n/);
      buffered = lines.pop() ?? '';
      for (const line of lines) {
        if (line === '') {
          if (Object.keys(message).length > 0) yield message;
          message = {};
          continue;
        }
        if (line.startsWith(':')) continue;
        const colon = line.indexOf(':');
        const field = colon < 0 ? line : line.slice(0, colon);
        const value = colon < 0 ? '' : line.slice(colon + 1).replace(/^ /, '');
        if (field === 'data') message.data = message.data === undefined ? value : `${message.data}\n${value}`;
        else if (field === 'event') message.event = value;
        else if (field === 'id') message.id = value;
        else if (field === 'retry' && /^\d+$/.test(value)) message.retry = Number(value);
      }
    }
  } finally {
    signal.removeEventListener('abort', release);
    release();
  }
}

function pause(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(done, ms);
    function done() {
      clearTimeout(timer);
      signal.removeEventListener('abort', done);
      resolve();
    }
    signal.addEventListener('abort', done, { once: true });
  });
}
