/**
 * What uploading a large file costs: `node --import tsx bench/file-upload.ts [--mb 100]
 * [--reps 3]`. restock runs as `npm start` runs it, on SQLite, its files folder on the same
 * disk as the file sent; each run uploads the file (multipart, sent from disk by curl)
 * and, as the baseline, copies it with `cp` on the same disk (then syncs it, as
 * restock syncs a file before its record names it). It prints the server's resident memory
 * growth over the upload (its peak, VmHWM, reset just before, against its resident size
 * then) and both throughputs in MB/s, with their ratio.
 */
import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { median } from './median.js';
import { corePins, startServer } from './servers.js';

const { values: args } = parseArgs({
  options: { mb: { type: 'string', default: '100' }, reps: { type: 'string', default: '3' } },
});
const MB = Number(args.mb);
const REPS = Number(args.reps);
const dir = mkdtempSync(join(tmpdir(), 'restock-bench-upload-'));

const schemas = join(dir, 'schemas');
execFileSync('mkdir', ['-p', schemas]);
const maxBytes = (MB + 1) * 1024 * 1024;
writeFileSync(
  join(schemas, 'uploads.schema.json'),
  JSON.stringify({ type: 'object', properties: { title: { type: 'string' }, file: { 'x-file': { maxBytes } } } }),
);
const source = join(dir, 'big.bin');
// Random bytes, written a MiB at a time: nothing compresses, and the bench itself stays small.
writeFileSync(source, '');
for (let mib = 0; mib < MB; mib += 1) writeFileSync(source, randomBytes(1024 * 1024), { flag: 'a' });

const memory = (pid: number, field: 'VmRSS' | 'VmHWM') =>
  Number(new RegExp(`${field}:\\s+(\\d+) kB`).exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1]) / 1024;

/** One upload by curl, pinned to the load core: fetch's FormData streaming was the bottleneck (112 MB/s). */
function upload(url: string, pin: string[]): number {
  const started = performance.now();
  const [file = 'curl', ...rest] = [...pin, 'curl', '-s', '-o', '/dev/null', '-w', '%{http_code}'];
  const form = ['-F', 'record={"title":"big"}', '-F', `file=@${source};type=application/octet-stream`];
  const status = execFileSync(file, [...rest, ...form, `${url}/upload/`]).toString();
  const seconds = (performance.now() - started) / 1000;
  if (status !== '201') throw new Error(`upload answered ${status}`);
  return seconds;
}

function copy(): number {
  const started = performance.now();
  execFileSync('cp', [source, join(dir, 'copy.bin')]);
  execFileSync('sync', [join(dir, 'copy.bin')]);
  const seconds = (performance.now() - started) / 1000;
  rmSync(join(dir, 'copy.bin'));
  return seconds;
}

try {
  const pins = corePins();
  const server = await startServer({
    target: 'restock',
    database: join(dir, 'restock.db'),
    pin: pins.server,
    env: { SCHEMAS: schemas, FILES_DIR: join(dir, 'files'), REQUEST_TIMEOUT: '600000' },
  });
  try {
    const uploads: number[] = [];
    const copies: number[] = [];
    const growths: number[] = [];
    for (let rep = 0; rep < REPS; rep += 1) {
      // Writing 5 to clear_refs resets the peak (VmHWM) to the resident size now (Linux 4.0+).
      writeFileSync(`/proc/${server.pid}/clear_refs`, '5');
      const before = memory(server.pid, 'VmRSS');
      uploads.push(upload(server.url, pins.load));
      growths.push(memory(server.pid, 'VmHWM') - before);
      copies.push(copy());
    }
    const uploadRate = MB / median(uploads);
    const copyRate = MB / median(copies);
    process.stdout.write(`upload of ${MB} MB, median of ${REPS}\n`);
    process.stdout.write(`  restock upload   ${uploadRate.toFixed(0)} MB/s\n`);
    process.stdout.write(`  cp (+ sync)      ${copyRate.toFixed(0)} MB/s\n`);
    process.stdout.write(`  ratio            ${(uploadRate / copyRate).toFixed(2)}× cp\n`);
    process.stdout.write(
      `  server RSS growth ${Math.max(...growths).toFixed(1)} MB at most (peak over the resident size before)\n`,
    );
  } finally {
    await server.stop();
  }
} finally {
  rmSync(dir, { recursive: true, force: true });
}
