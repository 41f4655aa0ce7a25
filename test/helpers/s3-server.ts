/**
 * A real S3-compatible server for the tests: s3rver, in a process of its own on 127.0.0.1
 * (port 0), its objects in a temporary folder, with one empty bucket made. Point
 * FILES_URL at `s3://<bucket>/<prefix>` and FILES_S3_ENDPOINT at `endpoint`; s3rver checks
 * signatures against {@link S3_TEST_CREDENTIALS}, which the SDK's default chain reads from
 * the environment ({@link useS3TestCredentials}).
 *
 * Its own process, because s3rver makes a listing's continuation token with DES, which
 * OpenSSL 3 (Node.js 17 and later) leaves to its legacy provider: without
 * `--openssl-legacy-provider`, any listing longer than a page fails with a 500.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { once } from 'node:events';
import { mkdtempSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';

export interface S3Server {
  /** `http://127.0.0.1:<port>` */
  readonly endpoint: string;
  readonly bucket: string;
  close(): Promise<void>;
}

/** The credentials s3rver takes (any would do, but the SDK must find some). */
export const S3_TEST_CREDENTIALS = { AWS_ACCESS_KEY_ID: 'S3RVER', AWS_SECRET_ACCESS_KEY: 'S3RVER' } as const;

/** Puts {@link S3_TEST_CREDENTIALS} in the environment, where the SDK's default chain reads them. */
export function useS3TestCredentials(): void {
  Object.assign(process.env, S3_TEST_CREDENTIALS);
}

/** The settings that keep files on `server`, under `prefix` (a new random one when not given; `''` for none). */
export function s3SettingsOf(
  server: S3Server,
  prefix = `t${randomBytes(6).toString('hex')}`,
): { filesUrl: string; filesS3Endpoint: string; filesS3Region: string } {
  return {
    filesUrl: `s3://${server.bucket}${prefix === '' ? '' : `/${prefix}`}`,
    filesS3Endpoint: server.endpoint,
    filesS3Region: 'us-east-1',
  };
}

/**
 * Run in the child: starts s3rver, prints its port, and when its stdin closes (closed, or the
 * test process gone, killed or not) removes its folder and exits.
 */
const CHILD = `
const S3rver = require(process.argv[1]);
const [directory, bucket] = process.argv.slice(2);
const server = new S3rver({ address: '127.0.0.1', port: 0, directory, silent: true, configureBuckets: [{ name: bucket }] });
server.run().then(({ port }) => console.log(String(port)), (error) => { console.error(error); process.exit(1); });
process.stdin.on('end', () => {
  require('node:fs').rmSync(directory, { recursive: true, force: true });
  process.exit(0);
}).resume();
`;

export async function startS3Server(bucket = 'restock-test'): Promise<S3Server> {
  const directory = mkdtempSync(join(tmpdir(), 'restock-s3-'));
  const s3rver = createRequire(import.meta.url).resolve('s3rver');
  const child: ChildProcess = spawn(
    process.execPath,
    ['--openssl-legacy-provider', '--no-deprecation', '-e', CHILD, s3rver, directory, bucket],
    { stdio: ['pipe', 'pipe', 'inherit'] },
  );
  const exited = once(child, 'exit');
  const lines = createInterface({ input: child.stdout as NodeJS.ReadableStream });
  const port = await Promise.race([
    once(lines, 'line').then(([line]) => Number(line)),
    exited.then(([code]) => `exited (${code})`),
  ]);
  lines.close();
  if (typeof port !== 'number' || !(port > 0)) throw new Error(`s3rver did not listen: ${port}`);
  return {
    endpoint: `http://127.0.0.1:${port}`,
    bucket,
    async close() {
      child.stdin?.end();
      await exited;
    },
  };
}
