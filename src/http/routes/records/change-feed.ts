/**
 * `GET /<plural>/events/`: the collection's changes as server-sent events. Each event is
 * `created`, `updated` or `deleted`, carries the record (as it was, for a delete) and has
 * the change's number as its id. `Last-Event-ID` (or `?since=`) resumes after a number,
 * with nothing missed and nothing doubled; without either the feed starts with the next
 * change. Past what the log keeps (EVENTS_RETENTION_HOURS), a `reset` event comes first. The
 * list's filters apply; an update that takes a record out of them is sent as a `deleted`
 * of the record as the feed last saw it, adding `"reason": "left-filter"`. A client that
 * does not read what it is sent is disconnected once more comes while
 * {@link MAX_BUFFERED_BYTES} wait for it, or once what it was sent has stayed unread for two
 * heartbeats (30 s by default), and resumes from its last id when it reconnects.
 */
import type { OutgoingHttpHeaders } from 'node:http';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Collection } from '../../../core/collection.js';
import { eventFor, feedView } from '../../../records/change-event.js';
import type { ChangeHubs } from '../../../records/change-hub.js';
import type { InFlightGate } from '../../../records/in-flight-gate.js';
import { parseListQuery, type RawListQuery, RESERVED } from '../../../records/list-query.js';
import type { QueryFields } from '../../../records/query-fields.js';
import type { ChangeBounds, ChangeLog, ListQuery, RuleFilter } from '../../../store/store.js';
import { holderOf } from '../../plugins/rate-limit/index.js';
import { HttpProblem } from '../../problem.js';
import type { ChangeFeedMetrics, CutReason } from './change-feed-metrics.js';

/** The most bytes a feed lets wait unsent before it disconnects the client. */
export const MAX_BUFFERED_BYTES = 1024 * 1024;

/** How long a reconnecting client should wait, sent once at the start (milliseconds). */
const RETRY_MS = 2000;

const STREAM_HEADERS = {
  'content-type': 'text/event-stream; charset=utf-8',
  'cache-control': 'no-store',
  'x-accel-buffering': 'no',
};

export interface ChangeFeedOptions {
  collection: Collection;
  log: ChangeLog;
  hubs: ChangeHubs;
  heartbeatMs: number;
  maxFieldNameLength: number;
  /** The field names its filters may name. */
  fields: QueryFields;
  /** The feeds open now, each with its collection: ended when the server closes, counted on /metrics. */
  open: Map<() => void, string>;
  /** The caps on feeds open at once, per client and in all. */
  gate: InFlightGate;
  metrics: ChangeFeedMetrics;
}

/** A list query as the caller may see it (its record rules), or undefined when it may see none. */
export type Narrow = (query: ListQuery) => ListQuery | undefined;

/** A rule no record meets: the feed of a caller who may list nothing. */
const NOTHING: RuleFilter = { or: [] };

/** The longest a timer waits (setTimeout's limit, about 24.8 days). */
const MAX_TIMER_MS = 2 ** 31 - 1;

/**
 * Follows the collection's changes for `request`, as `narrow` lets its caller see them.
 * A feed opened with an access token ends when the token expires: the client reconnects
 * with a new one, and its rules are applied afresh.
 */
export async function followChanges(
  request: FastifyRequest,
  reply: FastifyReply,
  options: ChangeFeedOptions,
  narrow: Narrow = (query) => query,
  expiresAt?: number,
) {
  const { since, access_token: _key, ...filters } = request.query as Record<string, unknown> & { since?: string };
  const unfit = RESERVED.filter((name) => name !== 'filter' && filters[name] !== undefined);
  if (unfit.length > 0) throw invalid(`${unfit.join(', ')} do not apply to a feed: filter by fields`);
  const parsed = parseListQuery(
    { ...filters, limit: 1 } as RawListQuery,
    options.maxFieldNameLength,
    options.fields,
  ).query;
  const query = narrow(parsed) ?? { ...parsed, rule: NOTHING };
  const view = feedView(query.where, query.rule);
  const resumeAt = positionOf(request.headers['last-event-id'] ?? since);
  if (request.method === 'HEAD') return reply.headers(STREAM_HEADERS).send();
  const giveBack = options.gate.take(holderOf(request));
  let bounds: ChangeBounds;
  try {
    bounds = await options.log.bounds(options.collection.plural);
  } catch (error) {
    giveBack();
    throw error;
  }
  let position = resumeAt ?? bounds.last;
  // Past the log's start, the changes between are gone; past its end (a database restored
  // from a backup numbers again from an earlier change), the client's later ones never were.
  const reset = resumeAt !== undefined && (resumeAt < bounds.first - 1 || resumeAt > bounds.last);
  if (reset) position = Math.min(Math.max(resumeAt, bounds.first - 1), bounds.last);

  reply.hijack();
  const socket = reply.raw;
  // What the hooks set (CORS, the rate limit's, the request id) and what onSend would add.
  socket.writeHead(200, {
    ...(reply.getHeaders() as OutgoingHttpHeaders),
    ...STREAM_HEADERS,
    'x-content-type-options': 'nosniff',
    // The connection is the stream's: when the feed ends, so does it (a server closing
    // would otherwise wait for it as an idle keep-alive connection).
    connection: 'close',
  });
  socket.write(`retry: ${RETRY_MS}\n\n`);
  if (reset) socket.write(`event: reset\ndata: ${JSON.stringify({ from: position })}\n\n`);

  let ended = false;
  // `cut`: the client fell behind or went; its connection is dropped with what waits for
  // it, which frees that memory at once (ending the response would first wait for it to be read).
  const end = (cut?: CutReason | 'gone') => {
    if (ended) return;
    ended = true;
    clearInterval(heartbeat);
    clearTimeout(expiry);
    void unsubscribe();
    giveBack();
    options.open.delete(end);
    options.metrics.answered(request, reply);
    // A hijacked reply is not in the access log: the feed writes its own line as it ends.
    request.log.info(
      { req: request, res: reply, responseTime: reply.elapsedTime, events: sent, cut },
      'change feed ended',
    );
    if (cut === undefined) return void socket.end();
    socket.destroy();
    if (cut !== 'gone') options.metrics.cut(options.collection.plural, cut);
  };
  let sent = 0;
  // A client that leaves what it was sent unread for two heartbeats is cut off too, however
  // little waits for it: one that stopped reading holds its memory until then, no longer.
  let stalledBeats = 0;
  const heartbeat = setInterval(() => {
    stalledBeats = socket.writableNeedDrain ? stalledBeats + 1 : 0;
    if (stalledBeats > 2) end('stall');
    else write(': heartbeat\n\n');
  }, options.heartbeatMs);
  heartbeat.unref();
  const expiry =
    expiresAt === undefined || expiresAt - Date.now() > MAX_TIMER_MS
      ? undefined
      : setTimeout(() => end(), Math.max(0, expiresAt - Date.now())).unref();
  // A client with a MiB unread when more comes is cut off. One event may wait on top of what
  // the client reads, however large: a record of 900 KB must not cut a client that keeps up.
  // The events' bytes are shared by every feed, so what waits costs little of its own.
  const write = (text: string | Buffer) => {
    if (ended) return;
    if (socket.writableLength > MAX_BUFFERED_BYTES) return end('buffer');
    socket.write(text);
  };
  const unsubscribe = options.hubs.subscribe(options.collection, {
    position,
    async take(changes) {
      for (const change of changes) {
        if (ended) return;
        this.position = change.seq;
        const event = eventFor(change, view);
        if (event) {
          sent++;
          write(event);
        }
      }
    },
    ready: () =>
      new Promise<void>((resolve) => {
        // 'drain' comes only after a write that filled the buffer.
        if (ended || !socket.writableNeedDrain) return resolve();
        const done = () => {
          socket.off('drain', done);
          socket.off('close', done);
          resolve();
        };
        socket.on('drain', done);
        socket.on('close', done);
      }),
    fail(error) {
      request.log.error({ err: error }, 'the change feed could not read the log');
      end('failure');
    },
  });
  options.open.set(end, options.collection.plural);
  socket.on('close', () => end());
  // A client that goes away may only half-close its side: the feed ends then too.
  request.raw.socket.once('end', () => end('gone'));
}

/** A change number from Last-Event-ID or `since`: a non-negative integer, else a 400. */
function positionOf(value: string | string[] | undefined): number | undefined {
  if (value === undefined) return undefined;
  const text = Array.isArray(value) ? value[0] : value;
  if (text === undefined || !/^(0|[1-9][0-9]{0,15})$/.test(text)) {
    throw invalid('Last-Event-ID and since must be the id of an event (a non-negative integer)');
  }
  return Number(text);
}

function invalid(why: string): HttpProblem {
  return new HttpProblem('invalid-query', `The change feed cannot follow this request: ${why}.`);
}
