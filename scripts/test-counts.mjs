// Runs after the tests: counts the test cases of each store from the JUnit report, so that
// every run says how much ran on SQLite and how much on PostgreSQL. A suite's store is the
// "(sqlite)" or "(postgres)" at the end of its top-level name. With
// RESTOCK_REQUIRE_POSTGRES=1 (CI), no PostgreSQL test case at all is a failure.
import { readFileSync } from 'node:fs';

const xml = readFileSync(process.argv[2] ?? 'test-results.xml', 'utf8');
const counts = { sqlite: 0, postgres: 0, 'either store': 0 };
let depth = 0;
let store = 'either store';
for (const [tag] of xml.matchAll(/<\/?test(?:suite|case)\b[^>]*>/g)) {
  if (tag.startsWith('</testsuite')) depth--;
  else if (tag.startsWith('<testsuite')) {
    if (depth === 0) store = /\((sqlite|postgres)\)"/.exec(tag)?.[1] ?? 'either store';
    if (!tag.endsWith('/>')) depth++;
  } else if (tag.startsWith('<testcase')) counts[depth === 0 ? 'either store' : store]++;
}
console.log(
  `test cases by store: ${Object.entries(counts)
    .map(([k, v]) => `${k} ${v}`)
    .join(', ')}`,
);
if (process.env.RESTOCK_REQUIRE_POSTGRES === '1' && counts.postgres === 0) {
  console.error('the PostgreSQL suites did not run (RESTOCK_REQUIRE_POSTGRES=1)');
  process.exit(1);
}
