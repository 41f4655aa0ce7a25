// Prints the test files for `npm test`, slowest first by the last run's test-report.jsonl
// (alphabetical without one): with files run side by side, starting the long ones first
// keeps one long file from running alone at the end while the other core idles.
//
// With RESTOCK_TEST_SHARD=K/N (CI, which runs the suite once per Node.js line), the files
// whose subject does not change with the runtime run on one line of the N only, shard K
// (and shard K+N, …, when N is under the shards' count): the storage drivers, crashes,
// processes, the change feed and the package run on every line. Without it, every file runs.
// RESTOCK_TEST_TIMES_FROM names a folder of earlier lines' reports to order by.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

/** Files that run on one line of a CI run, by shard; any file not named here runs on every line. */
const SHARDS = [
  [
    'file-uploads',
    'account-tokens',
    'account-flows-store',
    'files-download',
    'account-providers',
    'account-reset',
    'account-verify',
    'backup',
    'client.browser',
    'connection-limit',
    'console',
    'container',
    'console.browser',
    'hostile-input',
    'list-filter-property',
    'list-rules',
    'log-destination',
    'mail-outbox',
    'openapi-lint',
    'plugins',
    'record-reader',
    'record-rules',
    'webhook-body',
    'webhook-engine',
    'webhook-deliveries-store',
  ],
  [
    'file-refusals',
    'batch',
    'bulk-create',
    'files-thumbs-tokens',
    'change-feed-hostile',
    'client-flows',
    'client-package',
    'conditional',
    'console-accounts.browser',
    'console-flows.browser',
    'declared-collections',
    'files.browser',
    'account-changes',
    'file-reaper',
    'hidden-records',
    'hostile-batches',
    'indexed-values',
    'list-filter',
    'metrics',
    'openapi-fuzz',
    'openapi-proxies',
    'page-memory',
    'query-plan',
    'service',
    'webhook-crash',
    'webhook-delivery',
  ],
  [
    'file-types',
    'access',
    'address-budgets',
    'client-reads',
    'client-types',
    'collections',
    'doc-code',
    'compression',
    'config',
    'console-shop.browser',
    'deep-cascades',
    'env-file',
    'file-sweep',
    'file-life-cycle',
    'floors',
    'account-home',
    'catalog-lookups',
    'limits',
    'openapi',
    'openapi-files',
    'openapi-servers',
    'openapi-shared-responses',
    'readme',
    'readme-links',
    'relations',
    'rule-eval',
    'rule-syntax',
    'settings-docs',
    'slow-queries',
    'webhook-instances',
    'webhook-shop',
  ],
  [
    'accounts',
    'cli',
    'start-footprint',
    'cli-accounts',
    'cli-terminal',
    'client',
    'client-accounts',
    'client-batch',
    'client-calls',
    'client-files',
    'docs-page.browser',
    'console-webhooks.browser',
    'fair-hashing',
    'file-commands',
    'generated-client',
    'hostile-records',
    'idempotent-passwords',
    'method-override',
    'oversized-bodies',
    'paths',
    'schemas',
    'slow-clients',
    'files-s3',
    'webhook-address',
    'webhook-store',
    'webhooks-api',
    'webhooks-access',
    'webhooks-deliveries',
    'webhooks-declared',
  ],
];

const [shard, shardCount] = (process.env.RESTOCK_TEST_SHARD ?? '0/1').split('/').map(Number);
const shardOf = new Map(SHARDS.flatMap((names, index) => names.map((name) => [`test/${name}.test.ts`, index])));
const runsHere = (file) => !shardOf.has(file) || shardOf.get(file) % shardCount === shard;

const all = readdirSync('test')
  .filter((name) => name.endsWith('.test.ts'))
  .map((name) => `test/${name}`);
// A shard naming a file that is gone would hide a rename: the renamed file would run on every line unnoticed.
const gone = [...shardOf.keys()].filter((file) => !all.includes(file));
if (gone.length > 0) throw new Error(`scripts/test-files.mjs shards name files that do not exist: ${gone.join(', ')}`);
const files = all.filter(runsHere).sort();

// A file's seconds in a report, and the most any report gave it.
const seconds = new Map();
const timesFrom = process.env.RESTOCK_TEST_TIMES_FROM;
const reports = ['test-report.jsonl'];
if (timesFrom && existsSync(timesFrom)) {
  reports.push(
    ...readdirSync(timesFrom)
      .filter((name) => name.endsWith('.jsonl'))
      .map((name) => join(timesFrom, name)),
  );
}
for (const report of reports.filter((path) => existsSync(path))) {
  const inReport = new Map();
  for (const line of readFileSync(report, 'utf8').split('\n')) {
    if (!line) continue;
    const entry = JSON.parse(line);
    if (entry.nesting === 0) inReport.set(entry.file, (inReport.get(entry.file) ?? 0) + entry.ms);
  }
  for (const [file, ms] of inReport) seconds.set(file, Math.max(seconds.get(file) ?? 0, ms));
}
files.sort((a, b) => (seconds.get(b) ?? 0) - (seconds.get(a) ?? 0));
console.log(files.join(' '));
