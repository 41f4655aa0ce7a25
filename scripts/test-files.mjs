// Prints the test files for `npm test`, slowest first by the last run's test-report.jsonl
// (alphabetical without one): with files run side by side, starting the long ones first
// keeps one long file from running alone at the end while the other core idles.
import { existsSync, readdirSync, readFileSync } from 'node:fs';

const files = readdirSync('test')
  .filter((name) => name.endsWith('.test.ts'))
  .map((name) => `test/${name}`)
  .sort();
const seconds = new Map();
if (existsSync('test-report.jsonl')) {
  for (const line of readFileSync('test-report.jsonl', 'utf8').split('\n')) {
    if (!line) continue;
    const entry = JSON.parse(line);
    if (entry.nesting === 0) seconds.set(entry.file, (seconds.get(entry.file) ?? 0) + entry.ms);
  }
}
files.sort((a, b) => (seconds.get(b) ?? 0) - (seconds.get(a) ?? 0));
console.log(files.join(' '));
