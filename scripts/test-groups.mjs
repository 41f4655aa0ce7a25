// The test groups of CONTRIBUTING.md's table, as lists of files: `npm run test:<group>` runs
// one group (`node scripts/test-groups.mjs <group>`), with npm test's flags and after the
// same stale-build check; `--list <group>` prints its files instead. test/test-files.test.ts
// keeps this list, the table and package.json's scripts naming the same groups and files,
// and every test file in exactly one group.
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

/** Each group's files, by name (`test/<name>.test.ts`), in the table's order. */
export const TEST_GROUPS = {
  contract: [
    'records',
    'paths',
    'method-override',
    'collections',
    'conditional',
    'schemas',
    'declared-collections',
    'bulk-create',
    'batch',
    'relations',
    'change-feed',
    'change-feed-commit',
    'list-filter',
  ],
  storage: [
    'store',
    'store-tables',
    'batch-store',
    'concurrent-batches',
    'indexes',
    'query-plan',
    'group-commit',
    'durability',
    'postgres',
    'postgres-outages',
  ],
  hostile: [
    'hostile-input',
    'hostile-records',
    'hostile-batches',
    'limits',
    'address-budgets',
    'slow-clients',
    'slow-queries',
    'page-memory',
    'access',
    'change-feed-hostile',
    'connection-limit',
    'oversized-bodies',
    'indexed-values',
    'deep-cascades',
  ],
  cli: [
    'crash',
    'batch-crash',
    'mail-crash',
    'processes',
    'start-footprint',
    'concurrent-merges',
    'cli',
    'cli-accounts',
    'cli-terminal',
    'env-file',
    'metrics',
    'backup',
    'record-reader',
  ],
  service: [
    'service',
    'console',
    'compression',
    'openapi',
    'openapi-servers',
    'openapi-proxies',
    'openapi-fuzz',
    'openapi-shared-responses',
    'openapi-files',
    'log-destination',
  ],
  runtime: ['node-runtime'],
  packaging: ['package', 'container'],
  client: [
    'client',
    'client-calls',
    'client-accounts',
    'client-flows',
    'client-batch',
    'client-types',
    'client-reads',
    'client-files',
    'client.browser',
    'client-package',
  ],
  structure: ['floors', 'account-home', 'catalog-lookups', 'plugins', 'openapi-lint', 'test-files'],
  rules: [
    'accounts',
    'account-tokens',
    'account-flows-store',
    'mail-outbox',
    'account-verify',
    'account-providers',
    'account-reset',
    'account-changes',
    'fair-hashing',
    'idempotent-passwords',
    'record-rules',
    'hidden-records',
    'list-rules',
    'list-filter-property',
    'rule-syntax',
    'rule-eval',
  ],
  generated: ['generated-client', 'generated-sdks'],
  browser: [
    'console.browser',
    'console-accounts.browser',
    'console-flows.browser',
    'console-shop.browser',
    'files.browser',
    'docs-page.browser',
  ],
  docs: ['readme', 'readme-links', 'doc-code', 'settings-docs', 'config'],
  files: [
    'file-uploads',
    'file-refusals',
    'file-types',
    'file-reaper',
    'file-sweep',
    'file-life-cycle',
    'file-commands',
    'file-crash',
    'files-download',
    'files-thumbs-tokens',
    'file-storage',
    'files-s3',
  ],
  webhooks: [
    'webhook-address',
    'webhook-body',
    'webhook-engine',
    'webhook-sender',
    'webhook-store',
    'webhook-deliveries-store',
    'webhooks-api',
    'webhooks-access',
    'webhooks-deliveries',
    'webhooks-declared',
    'webhook-delivery',
    'webhook-shop',
    'webhook-crash',
    'webhook-instances',
    'console-webhooks.browser',
  ],
};

/** The files of one group, as paths from the project's root. */
export function groupFiles(group) {
  const names = Object.hasOwn(TEST_GROUPS, group) ? TEST_GROUPS[group] : undefined;
  if (!names) throw new Error(`no test group "${group}"; the groups: ${Object.keys(TEST_GROUPS).join(', ')}`);
  return names.map((name) => `test/${name}.test.ts`);
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const list = process.argv[2] === '--list';
  const group = process.argv[list ? 3 : 2];
  let files;
  try {
    files = groupFiles(group);
  } catch (error) {
    console.error(error.message);
    process.exit(2);
  }
  if (list) {
    console.log(files.join(' '));
  } else {
    // The processes tests start run dist/: built once here, not by two files at once.
    const built = spawnSync(process.execPath, ['scripts/build-if-stale.mjs'], { stdio: 'inherit' });
    if (built.status !== 0) process.exit(built.status ?? 1);
    const flags = ['--import', 'tsx', '--test', '--test-concurrency=2', '--test-timeout=300000'];
    const run = spawnSync(process.execPath, [...flags, ...files], { stdio: 'inherit' });
    process.exit(run.status ?? 1);
  }
}
