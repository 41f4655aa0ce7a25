// Reads the reports scripts/test-report.mjs writes (test-report.jsonl) and prints either
//   times [--top N] [REPORT]       the slowest files and the slowest tests (`npm run test:times`);
//   failures REPORT [REPORT ...]   every failed test: file and line, name, message, Node.js,
//                                  short enough for the last lines of a CI log to hold it.
import { existsSync, readFileSync } from 'node:fs';

function read(report) {
  if (!existsSync(report)) return [];
  return readFileSync(report, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line));
}

const seconds = (ms) => (ms / 1000).toFixed(1).padStart(7);

function times(args) {
  const topAt = args.indexOf('--top');
  const top = topAt === -1 ? 20 : Number(args[topAt + 1]);
  const report =
    args.find((arg, i) => !arg.startsWith('--') && (topAt === -1 || i !== topAt + 1)) ?? 'test-report.jsonl';
  const entries = read(report);
  if (entries.length === 0) {
    console.error(`no test report at ${report}: run npm test first`);
    process.exit(1);
  }
  const byFile = new Map();
  for (const entry of entries) {
    if (entry.nesting === 0) byFile.set(entry.file, (byFile.get(entry.file) ?? 0) + entry.ms);
  }
  const total = [...byFile.values()].reduce((sum, ms) => sum + ms, 0);
  console.log(`Slowest files (seconds in their tests; ${seconds(total).trim()} s in all, on ${entries[0].node}):`);
  for (const [file, ms] of [...byFile].sort((a, b) => b[1] - a[1]).slice(0, top))
    console.log(`${seconds(ms)}  ${file}`);
  console.log(`\nSlowest tests:`);
  const tests = entries.filter((entry) => !entry.suite).sort((a, b) => b.ms - a.ms);
  for (const test of tests.slice(0, top)) console.log(`${seconds(test.ms)}  ${test.file}: ${test.name}`);
}

/** How many distinct failures are printed in full; the rest get one line between them. */
const SHOWN = 5;

/**
 * Failures of tests themselves (a suite that failed only because a test in it did is left
 * out), one entry per distinct assertion: where it failed and its message once, then how
 * many tests on which Node.js lines, so that one broken assertion in a helper many tests
 * share still leaves the tail of a CI log room to name it.
 */
function failures(reports) {
  const groups = new Map();
  let count = 0;
  for (const report of reports) {
    for (const entry of read(report)) {
      if (entry.ok || entry.failure?.kind === 'subtestsFailed') continue;
      count++;
      const where = `${entry.file ?? '?'}:${entry.failure?.line ?? entry.declaredAt ?? '?'}`;
      const lines = (entry.failure?.message ?? '').split('\n').filter((line) => line.trim() !== '');
      const message = lines.slice(0, 4).join('\n    ');
      const key = `${where}\n${message}`;
      const group = groups.get(key) ?? { where, message, names: [], nodes: new Set() };
      group.names.push(entry.name);
      group.nodes.add(entry.node);
      groups.set(key, group);
    }
  }
  const all = [...groups.values()];
  for (const { where, message, names, nodes } of all.slice(0, SHOWN)) {
    const tests = names.length === 1 ? '' : `, ${names.length} tests`;
    const more = names.length === 1 ? '' : ` (and ${names.length - 1} more)`;
    console.log(`✖ ${where} (Node.js ${[...nodes].join(', ')}${tests})\n  ${names[0]}${more}\n    ${message}`);
  }
  if (all.length > SHOWN)
    console.log(
      `✖ also: ${all
        .slice(SHOWN)
        .map((group) => group.where)
        .join(', ')}`,
    );
  console.log(count === 0 ? 'No test failed.' : `${count} failed test${count === 1 ? '' : 's'}.`);
}

const [command, ...args] = process.argv.slice(2);
if (command === 'times') times(args);
else if (command === 'failures') failures(args);
else {
  console.error('usage: test-results.mjs times [--top N] [REPORT] | failures REPORT...');
  process.exit(2);
}
