/**
 * Large pages in bounded memory, on a real server process of each store: four clients
 * reading pages of up to 100 records of 1 MB at once. Each page stops at MAX_PAGE_BYTES
 * (8 MiB by default) and its Link continues, and the database cuts each read at the bytes
 * left, so that the server serves all four within a heap of 256 MB.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import { startServer } from './helpers/server.js';
import { STORE_KINDS } from './helpers/stores.js';

const RECORDS = 100;
const RECORD = JSON.stringify({ blob: 'x'.repeat(1_000_000) });
const MAX_PAGE_BYTES = 8 * 1024 * 1024;
/**
 * The server's heap limit: room for its own needs and a few pages in flight, far from the
 * 400 MB four pages of 101 records of 1 MB took when a page read its first 101 records at
 * once (the process then dies, out of memory). A hard limit proves the bound whatever the
 * garbage collector of this Node.js leaves lying around.
 */
const HEAP_LIMIT_MB = 256;

/** The process's peak resident memory (VmHWM), in MB. */
function peakMb(pid: number): number {
  return Number(/VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1]) / 1024;
}

for (const kind of STORE_KINDS) {
  describe(`large pages (${kind.name})`, () => {
    it('are cut at MAX_PAGE_BYTES, continue by Link, and four at once keep memory bounded', async () => {
      const database = await kind.create();
      const server = await startServer({
        DATABASE_URL: database.url,
        RATE_LIMIT_MAX: '0',
        NODE_OPTIONS: `--max-old-space-size=${HEAP_LIMIT_MB}`,
        // The walks filter, so that on SQLite they run on the read threads, four at once.
        MAX_COSTLY_QUERIES_PER_CLIENT: '0',
        // Not the statement budget's test: on PostgreSQL each page turns the first 101 matching
        // records (101 MB) into text to size them, which on a busy machine passes the default 15 s.
        DATABASE_STATEMENT_TIMEOUT: '300000',
        // Nor the slow clients' test (slow-clients.test.ts): near its heap limit on a busy
        // machine the server can fall behind by more than the 30 s a request may take, and
        // then answers 408 to requests that came in time.
        HEADERS_TIMEOUT: '600000',
        REQUEST_TIMEOUT: '600000',
      });
      try {
        for (let i = 0; i < RECORDS; i += 4) {
          await Promise.all(
            [0, 1, 2, 3].map(async () => {
              const made = await fetch(`${server.url}/product/`, {
                method: 'POST',
                headers: { 'content-type': 'application/json' },
                body: RECORD,
              });
              assert.equal(made.status, 201);
            }),
          );
        }
        const before = peakMb(server.process.pid as number);
        const walks = await Promise.all(
          [0, 1, 2, 3].map(async () => {
            const sizes: number[] = [];
            let ids = 0;
            let url: string | undefined = `${server.url}/products/?limit=100&blob%5BstartsWith%5D=x`;
            while (url) {
              const response: Response = await fetch(url);
              const body = await response.text();
              assert.equal(response.status, 200, body);
              sizes.push(Buffer.byteLength(body));
              ids += (JSON.parse(body) as unknown[]).length;
              const next = /<([^>]+)>; rel="next"/.exec(response.headers.get('link') ?? '')?.[1];
              url = next && new URL(next, server.url).href;
            }
            return { sizes, ids };
          }),
        );
        for (const { sizes, ids } of walks) {
          assert.equal(ids, RECORDS, 'every record, once');
          assert.ok(sizes.length > 1, 'more than one page');
          for (const size of sizes) assert.ok(size <= MAX_PAGE_BYTES, `a page of ${size} bytes`);
        }
        assert.equal(server.process.exitCode, null, 'the server lives, within its heap limit');
        assert.equal((await fetch(`${server.url}/healthz`)).status, 200);
        const peak = peakMb(server.process.pid as number);
        process.stdout.write(
          `# ${kind.name}: peak RSS ${peak.toFixed(0)} MB, ${before.toFixed(0)} MB before the reads\n`,
        );
      } finally {
        await server.stop('SIGKILL');
        await database.drop();
      }
    });
  });
}
