/**
 * One round of bench/realtime.ts: subscribers shared out among some servers, warm-up creates,
 * then the measured creates, and per server the round's figures, with the CPU time the
 * server and this process (the client) spent on them.
 */

import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { delivered, type FeedServer, made, pacedCreates, type Subscriber, subscribeAll } from './realtime-feeds.js';
import { type Round, roundFigures } from './realtime-figures.js';
import { cpuSecondsOf } from './servers.js';

/** Whether the kernel keeps schedstat: each thread's run time, in nanoseconds. */
const SCHEDSTAT = existsSync('/proc/self/schedstat');

/**
 * CPU seconds process `pid` has used so far: with schedstat, the sum of its threads' run
 * times, to the nanosecond, as /proc's ticks of 10 ms are too coarse for 1.5 s of a quiet
 * server. A thread that has ended is no longer counted, so this is for differences over
 * spans in which the server's threads stay (restock's and PocketBase's do).
 */
function cpuSeconds(pid: number): number {
  if (!SCHEDSTAT) return cpuSecondsOf(pid);
  let ns = 0;
  for (const task of readdirSync(`/proc/${pid}/task`)) {
    try {
      ns += Number(readFileSync(`/proc/${pid}/task/${task}/schedstat`, 'utf8').split(' ')[0]);
    } catch {
      // The thread ended between the listing and the read.
    }
  }
  return ns / 1e9;
}

export interface RoundPlan {
  /** The servers the subscribers follow, `count` shared out evenly among them. */
  feeds: readonly FeedServer[];
  /** The server the creates go to. */
  writer: FeedServer;
  count: number;
  warmup: number;
  creates: number;
  intervalMs: number;
  /** Runs once the subscribers are connected, before any create. */
  idle?: () => Promise<void>;
  /** Runs once every event has arrived (or the wait for them gave up). */
  done?: () => Promise<void>;
}

/**
 * The warm-up creates come first, and every subscriber must have the last of them before
 * the measured ones start: then each one follows the collection. CPU time is counted from
 * the first measured create to the last event's arrival.
 */
export async function round(plan: RoundPlan): Promise<Round[]> {
  const groups: Subscriber[][] = [];
  try {
    for (const [i, feed] of plan.feeds.entries()) {
      const share = Math.floor(plan.count / plan.feeds.length) + (i < plan.count % plan.feeds.length ? 1 : 0);
      groups.push(await subscribeAll(feed, share));
    }
    await plan.idle?.();
    const quiet = await quietCpu(plan.feeds);
    const everyone = groups.flat();
    const warm = await pacedCreates(plan.writer, plan.warmup, plan.intervalMs, 'warm-up');
    await delivered(everyone, made(warm).slice(-1));
    const serverCpu = plan.feeds.map((feed) => cpuSeconds(feed.pid));
    const clientCpu = process.cpuUsage();
    const creates = await pacedCreates(plan.writer, plan.creates, plan.intervalMs, 'measured');
    await delivered(everyone, creates);
    const client = process.cpuUsage(clientCpu);
    const clientUs = client.user + client.system;
    const events = groups.reduce((sum, group) => sum + group.length, 0) * made(creates).length;
    const figures = groups.map((group, i) => ({
      ...roundFigures(group, creates),
      serverCpuMsPerCreate:
        ((cpuSeconds((plan.feeds[i] as FeedServer).pid) - (serverCpu[i] as number)) * 1000) / creates.length,
      clientCpuUsPerEvent: clientUs / events,
      serverQuietCpuMsPerSecond: quiet[i] as number,
    }));
    await plan.done?.();
    return figures;
  } finally {
    for (const subscriber of groups.flat()) subscriber.close();
  }
}

/** How long the servers' CPU time is read with the subscribers connected and no create. */
const QUIET_MS = 1500;

/**
 * Each server's CPU time a second while its subscribers wait for nothing (a poll, the
 * heartbeats): part of what a create seems to cost, to be told apart from it.
 */
async function quietCpu(feeds: readonly FeedServer[]): Promise<number[]> {
  const before = feeds.map((feed) => cpuSeconds(feed.pid));
  await new Promise((resolve) => setTimeout(resolve, QUIET_MS));
  return feeds.map((feed, i) => ((cpuSeconds(feed.pid) - (before[i] as number)) * 1e6) / QUIET_MS);
}

/** A round's figures on one line, for the progress log. */
export const describeRound = (name: string, r: Round) =>
  `  ${name}: ${r.delivered}/${r.expected} events${r.refused ? ` (${r.refused} creates refused)` : ''}; from send p50 ${r.fromSend.p50.toFixed(1)} p99 ` +
  `${r.fromSend.p99.toFixed(1)} max ${r.fromSend.max.toFixed(1)} ms; after the answer p50 ` +
  `${r.afterAnswer.p50.toFixed(1)} p99 ${r.afterAnswer.p99.toFixed(1)} max ${r.afterAnswer.max.toFixed(1)} ms; ` +
  `server CPU ${r.serverCpuMsPerCreate.toFixed(2)} ms a create (${r.serverQuietCpuMsPerSecond.toFixed(0)} ms/s quiet), client ${r.clientCpuUsPerEvent.toFixed(0)} µs an event`;
