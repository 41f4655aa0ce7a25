/**
 * Load shedding: while the event loop is saturated, requests are refused with 503 (and
 * Retry-After) by @fastify/under-pressure instead of queueing more work. A route that must
 * answer even then says `config: { shed: false }`: the liveness probe, so that a busy
 * process is not taken for a dead one.
 */
import underPressure from '@fastify/under-pressure';
import fp from 'fastify-plugin';
import { CONFIG_DEFAULTS } from '../../config/index.js';
import { HttpProblem } from '../problem.js';

export interface LoadSheddingOptions {
  /** Mean event loop delay, in ms, above which requests are refused with 503; 0 turns it off. */
  maxEventLoopDelayMs: number;
  /** How often the delay is measured (tests shorten it). */
  sampleIntervalMs: number;
}

export const DEFAULT_LOAD_SHEDDING: LoadSheddingOptions = {
  maxEventLoopDelayMs: CONFIG_DEFAULTS.maxEventLoopDelay,
  sampleIntervalMs: 1000,
};

/**
 * Its onRequest hook comes early (after the request id's), so that an overloaded process
 * refuses a request before spending anything else on it.
 */
export const loadShedding = fp<LoadSheddingOptions>(
  async (app, options) => {
    if (options.maxEventLoopDelayMs === 0) return;
    // The first samples measure the process's own start (opening the store, compiling the
    // routes), not load: nothing is shed until a sample covers only time since it was ready.
    // A sample is taken at most every interval; three allow for a late timer.
    let shedFrom = Number.POSITIVE_INFINITY;
    app.addHook('onReady', async () => {
      shedFrom = Date.now() + 3 * options.sampleIntervalMs;
    });
    await app.register(underPressure, {
      maxEventLoopDelay: options.maxEventLoopDelayMs,
      sampleInterval: options.sampleIntervalMs,
      // Only runs while under pressure: what the route says is read then, not on every request.
      async pressureHandler(request) {
        if (request.routeOptions.config.shed === false || Date.now() < shedFrom) return;
        throw new HttpProblem('overloaded', 'The server is too busy to take this request; retry in a few seconds.', {
          headers: { 'retry-after': '5' },
        });
      },
    });
  },
  { name: 'restock-load-shedding', fastify: '5.x', dependencies: ['restock-request-id'] },
);
