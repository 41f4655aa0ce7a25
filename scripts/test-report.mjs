// A node:test reporter that writes one JSON line per finished test and suite: its file, its
// full name, how long it took and, when it failed, the message and the line that failed.
// `npm test` writes it to test-report.jsonl beside the spec and JUnit reports, because
// Node.js 20 and 22 leave the file out of their JUnit output; scripts/test-results.mjs reads it
// (`npm run test:times`, and the failure summary CI prints last).
import { relative, resolve } from 'node:path';

const ROOT = process.cwd();

/** The first line of `stack` inside `file` (where the assertion failed), or undefined. */
function failedLine(stack, file) {
  if (typeof stack !== 'string' || !file) return undefined;
  for (const line of stack.split('\n')) {
    const at = line.indexOf(file);
    if (at === -1) continue;
    const match = /:(\d+):\d+\)?\s*$/.exec(line.slice(at + file.length));
    if (match) return Number(match[1]);
  }
  return undefined;
}

/** From what a crashed file printed on stderr, the error and the line after it (its place). */
function crashMessage(stderr) {
  const lines = stderr.join('').split('\n');
  const at = lines.findIndex((line) => /^\w*(Error|Exception)\b/.test(line));
  const picked = at === -1 ? lines.filter(Boolean).slice(-5) : lines.slice(at, at + 2);
  return picked.join('\n');
}

/** What a failure says: the assertion's own message rather than node:test's wrapper of it. */
function failure(error, file, stderr) {
  if (!error) return undefined;
  const cause = error.cause && typeof error.cause === 'object' ? error.cause : undefined;
  // A file whose process failed outside any test: node:test says only "test failed".
  const crashed = error.exitCode !== undefined && error.exitCode !== null;
  const message = crashed
    ? `the test file's process exited with ${error.exitCode}: ${crashMessage(stderr)}`
    : String(cause?.message ?? error.message ?? error);
  return {
    kind: error.failureType,
    message,
    line: failedLine(cause?.stack ?? error.stack, file),
  };
}

export default async function* testReport(source) {
  /** Per file, the names of the tests under way at each depth: a test's full name is its path. */
  const open = new Map();
  /** Per file, the last lines its process wrote to stderr, for a file that crashes. */
  const stderr = new Map();
  for await (const event of source) {
    const { data } = event;
    // Node.js 24 names some events' file relative to the working folder, others in full.
    const key = data?.file && resolve(data.file);
    if (event.type === 'test:stderr') {
      const lines = stderr.get(key) ?? [];
      lines.push(data.message);
      stderr.set(key, lines.slice(-40));
      continue;
    }
    if (event.type === 'test:start') {
      const names = open.get(key) ?? [];
      names.length = data.nesting;
      names.push(data.name);
      open.set(key, names);
      continue;
    }
    if (event.type !== 'test:pass' && event.type !== 'test:fail') continue;
    const path = (open.get(key) ?? []).slice(0, data.nesting);
    const file = key ? relative(ROOT, key) : undefined;
    yield `${JSON.stringify({
      file,
      name: [...path, data.name].join(' › '),
      nesting: data.nesting,
      suite: data.details?.type === 'suite',
      ms: Math.round(data.details?.duration_ms ?? 0),
      ok: event.type === 'test:pass',
      skipped: Boolean(data.skip || data.todo),
      node: process.version,
      declaredAt: data.line,
      failure: event.type === 'test:fail' ? failure(data.details?.error, key, stderr.get(key) ?? []) : undefined,
    })}\n`;
  }
}
