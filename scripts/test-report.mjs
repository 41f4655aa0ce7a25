// A node:test reporter that writes one JSON line per finished test and suite: its file, its
// full name, how long it took and, when it failed, the message and the line that failed.
// `npm test` writes it to test-report.jsonl beside the spec and JUnit reports, because
// Node.js 20 and 22 leave the file out of their JUnit output; scripts/test-results.mjs reads it
// (`npm run test:times`, and the failure summary CI prints last).
import { relative } from 'node:path';

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

/** What a failure says: the assertion's own message rather than node:test's wrapper of it. */
function failure(error, file) {
  if (!error) return undefined;
  const cause = error.cause && typeof error.cause === 'object' ? error.cause : undefined;
  const message = String(cause?.message ?? error.message ?? error);
  return {
    kind: error.failureType,
    message,
    line: failedLine(cause?.stack ?? error.stack, file),
  };
}

export default async function* testReport(source) {
  /** Per file, the names of the tests under way at each depth: a test's full name is its path. */
  const open = new Map();
  for await (const event of source) {
    const { data } = event;
    if (event.type === 'test:start') {
      const names = open.get(data.file) ?? [];
      names.length = data.nesting;
      names.push(data.name);
      open.set(data.file, names);
      continue;
    }
    if (event.type !== 'test:pass' && event.type !== 'test:fail') continue;
    const path = (open.get(data.file) ?? []).slice(0, data.nesting);
    const file = data.file ? relative(ROOT, data.file) : undefined;
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
      failure: event.type === 'test:fail' ? failure(data.details?.error, data.file) : undefined,
    })}\n`;
  }
}
