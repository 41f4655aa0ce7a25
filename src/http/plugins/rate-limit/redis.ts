/**
 * The Redis that every instance's request budgets are kept in, when REDIS_URL names one.
 * Reached once at start (unreachable: the process stops with one line); after that an
 * outage only lifts the limits until it is back, and is logged once each way.
 */
import type { FastifyInstance } from 'fastify';
import type { Redis } from 'ioredis';

/** Redis was unreachable at start: the process stops with this one line. */
export class RedisUnavailableError extends Error {}

export async function connectRedis(app: FastifyInstance, url: string): Promise<Redis> {
  // Loaded here, not at start: most processes have no REDIS_URL, and ioredis is 41 modules.
  const { Redis } = await import('ioredis');
  // No offline queue and one try per command: while Redis is away a request must not wait for it.
  const redis = new Redis(url, {
    lazyConnect: true,
    enableOfflineQueue: false,
    maxRetriesPerRequest: 1,
    connectTimeout: 2000,
    commandTimeout: 1000,
  });
  let healthy = true;
  redis.on('error', (error: Error) => {
    if (!healthy) return;
    healthy = false;
    app.log.warn({ err: error }, 'Redis does not answer: requests are served without rate limits until it is back');
  });
  redis.on('ready', () => {
    if (!healthy) app.log.info('Redis answers again: rate limits apply');
    healthy = true;
  });
  try {
    await redis.connect();
  } catch (error) {
    redis.disconnect();
    const where = new URL(url);
    throw new RedisUnavailableError(
      `cannot reach Redis at ${where.hostname}:${where.port || 6379} (REDIS_URL): ${(error as Error).message}`,
    );
  }
  app.addHook('onClose', async () => {
    redis.disconnect();
  });
  return redis;
}
