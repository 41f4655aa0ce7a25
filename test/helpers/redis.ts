/**
 * The Redis the shared rate limit suites run against: `TEST_REDIS_URL`, default
 * 127.0.0.1:6379. When it does not answer they are left out with a loud warning, unless
 * `RESTOCK_REQUIRE_REDIS=1` (as CI sets it), which makes that a failure.
 */
import { Redis } from 'ioredis';

export const REDIS_URL = process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';

async function redisAnswers(): Promise<boolean> {
  const client = new Redis(REDIS_URL, { lazyConnect: true, maxRetriesPerRequest: 0, retryStrategy: () => null });
  client.on('error', () => {});
  try {
    await client.connect();
    await client.ping();
    return true;
  } catch (error) {
    if (process.env.RESTOCK_REQUIRE_REDIS === '1') {
      throw new Error(`Redis is required (RESTOCK_REQUIRE_REDIS=1) but does not answer: ${error}`);
    }
    process.stderr.write(
      `\n${'!'.repeat(78)}\n!! Redis at ${REDIS_URL} does not answer (${(error as Error).message}).\n` +
        `!! SKIPPING the shared rate limit tests. Start Redis, or set TEST_REDIS_URL.\n${'!'.repeat(78)}\n\n`,
    );
    return false;
  } finally {
    client.disconnect();
  }
}

/** Whether the Redis suites run in this process. */
export const REDIS_AVAILABLE = await redisAnswers();
