/**
 * The figures of bench/realtime.ts: per round, for every event at every subscriber, the time
 * from just before its create's POST was sent and from that POST's answer; over rounds, the
 * median and range of each figure; and the printed table.
 */
import { median, percentile } from './median.js';
import { type Create, made, type Subscriber } from './realtime-feeds.js';

/** p50, p99 and max of some delays, in ms. */
export interface Spread {
  p50: number;
  p99: number;
  max: number;
}

export interface Round {
  /** Events that arrived, of records made × subscribers. */
  delivered: number;
  expected: number;
  /** Creates answered with anything but a record (restock's load shedding: `503`). */
  refused: number;
  /** From just before the POST was sent to the event's arrival. */
  fromSend: Spread;
  /** From the POST's answer to the event's arrival: below zero when the event came first. */
  afterAnswer: Spread;
  /** Events that arrived before their create's answer. */
  beforeAnswer: number;
  /** The POSTs' own time, sent to answered. */
  answer: Spread;
  /**
   * The server's CPU time from the first measured create to the last event's arrival, per
   * create: steadier than the delays when the machine is shared.
   */
  serverCpuMsPerCreate: number;
  /** This process's CPU time over the same span, per event received: what the client costs. */
  clientCpuUsPerEvent: number;
  /** The server's CPU time a second with the subscribers connected and no create, just before. */
  serverQuietCpuMsPerSecond: number;
}

function spread(values: number[]): Spread {
  return {
    p50: percentile(values, 50),
    p99: percentile(values, 99),
    max: values.length ? Math.max(...values) : Number.NaN,
  };
}

/** The delays of one round at some subscribers (the CPU times are the round's to add). */
export function roundFigures(
  subscribers: readonly Subscriber[],
  creates: readonly Create[],
): Omit<Round, 'serverCpuMsPerCreate' | 'clientCpuUsPerEvent' | 'serverQuietCpuMsPerSecond'> {
  const fromSend: number[] = [];
  const afterAnswer: number[] = [];
  const records = made(creates);
  for (const subscriber of subscribers) {
    for (const create of records) {
      const at = subscriber.arrivals.get(create.id);
      if (at === undefined) continue;
      fromSend.push(at - create.sent);
      afterAnswer.push(at - create.answered);
    }
  }
  return {
    delivered: fromSend.length,
    expected: subscribers.length * records.length,
    refused: creates.length - records.length,
    fromSend: spread(fromSend),
    afterAnswer: spread(afterAnswer),
    beforeAnswer: afterAnswer.filter((ms) => ms < 0).length,
    answer: spread(records.map((c) => c.answered - c.sent)),
  };
}

/** A figure over rounds: the median, and the lowest and highest round. */
export interface OverRounds {
  median: number;
  min: number;
  max: number;
}

export const over = (values: number[]): OverRounds => ({
  median: median(values),
  min: Math.min(...values),
  max: Math.max(...values),
});

export interface Summary {
  rounds: number;
  delivered: number;
  expected: number;
  beforeAnswer: number;
  refused: number;
  fromSend: Record<keyof Spread, OverRounds>;
  afterAnswer: Record<keyof Spread, OverRounds>;
  answerP50: OverRounds;
  serverCpuMsPerCreate: OverRounds;
  clientCpuUsPerEvent: OverRounds;
  serverQuietCpuMsPerSecond: OverRounds;
}

const KEYS = ['p50', 'p99', 'max'] as const;

export function summarize(rounds: readonly Round[]): Summary {
  const of = (pick: (r: Round) => Spread) =>
    Object.fromEntries(KEYS.map((key) => [key, over(rounds.map((r) => pick(r)[key]))])) as Record<
      keyof Spread,
      OverRounds
    >;
  return {
    rounds: rounds.length,
    delivered: rounds.reduce((sum, r) => sum + r.delivered, 0),
    expected: rounds.reduce((sum, r) => sum + r.expected, 0),
    beforeAnswer: rounds.reduce((sum, r) => sum + r.beforeAnswer, 0),
    refused: rounds.reduce((sum, r) => sum + r.refused, 0),
    fromSend: of((r) => r.fromSend),
    afterAnswer: of((r) => r.afterAnswer),
    answerP50: over(rounds.map((r) => r.answer.p50)),
    serverCpuMsPerCreate: over(rounds.map((r) => r.serverCpuMsPerCreate)),
    clientCpuUsPerEvent: over(rounds.map((r) => r.clientCpuUsPerEvent)),
    serverQuietCpuMsPerSecond: over(rounds.map((r) => r.serverQuietCpuMsPerSecond)),
  };
}

/** What the tables' CPU columns hold, printed once under them. */
export const CPU_LEGEND =
  'server CPU: ms a create, from the first create to the last event (under it, ms a second with the ' +
  'subscribers connected and no create); client CPU: µs an event received';

/** `20.1 (19.8–21.0)`: a median over rounds with its range, to `digits` decimals. */
export function cell(figure: OverRounds, digits = 1): string {
  const f = (value: number) => value.toFixed(digits);
  return figure.min === figure.max ? f(figure.median) : `${f(figure.median)} (${f(figure.min)}–${f(figure.max)})`;
}

/**
 * Two lines per server, the delays from the POST's send and from its answer (p50, p99, max);
 * on the first, the events delivered, the POST's own p50, and the CPU time of the server per
 * create and of the client per event; on the second, the server's CPU time a second while
 * quiet, which the figure per create includes (150 ms of it, at a create every 150 ms).
 */
export function tableLines(title: string, rows: readonly [string, Summary][]): string[] {
  const width = Math.max(18, ...rows.map(([name]) => name.length));
  const line = (name: string, delay: string, cells: string[]) =>
    `${name.padEnd(width)} ${delay.padEnd(12)} ${cells.map((c, i) => c.padStart(i < 3 ? 19 : 15)).join(' ')}`.trimEnd();
  const lines = [title, line('', 'delay', ['p50', 'p99', 'max', 'delivered', 'POST p50', 'server CPU', 'client CPU'])];
  for (const [name, s] of rows) {
    lines.push(
      line(name, 'from send', [
        ...KEYS.map((k) => cell(s.fromSend[k])),
        `${s.delivered}/${s.expected}`,
        cell(s.answerP50),
        cell(s.serverCpuMsPerCreate, 2),
        cell(s.clientCpuUsPerEvent, 0),
      ]),
      line('', 'after answer', [
        ...KEYS.map((k) => cell(s.afterAnswer[k])),
        '',
        '',
        cell(s.serverQuietCpuMsPerSecond, 0),
      ]),
    );
  }
  const early = rows.filter(([, s]) => s.beforeAnswer > 0).map(([name, s]) => `${name} ${s.beforeAnswer}`);
  if (early.length) lines.push(`events that arrived before their POST's answer: ${early.join(', ')}`);
  const refused = rows.filter(([, s]) => s.refused > 0).map(([name, s]) => `${name} ${s.refused}`);
  if (refused.length) lines.push(`creates refused (not counted): ${refused.join(', ')}`);
  return lines;
}
