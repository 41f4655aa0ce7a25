/**
 * A start does only what serving needs (docs/performance.md, Start-up and footprint): the real
 * process, started with the default settings (SQLite, the default collections: no mail, no
 * file fields, no providers, no S3, no webhooks), has loaded none of the packages of what
 * those settings leave off once it has answered its first reads. Each of them is imported at
 * its first use; the suites of mail, files, thumbnails, providers, S3, webhooks and the
 * commands use them. Which packages a process loaded is read by a module hook the test adds
 * (test/helpers/module-log.mjs), not by anything in the product.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { type RunningServer, SERVER_ENTRY, startServer } from './helpers/server.js';

/** Packages only optional features use, each with the feature that imports it. */
const DEFERRED: Readonly<Record<string, string>> = {
  'json-schema-to-typescript': 'restock types',
  prettier: 'restock types (through json-schema-to-typescript)',
  lodash: 'restock types (through json-schema-to-typescript)',
  '@apidevtools/json-schema-ref-parser': 'restock types (through json-schema-to-typescript)',
  'js-yaml': 'restock types (through json-schema-to-typescript)',
  'cli-progress': 'restock import and export',
  nodemailer: 'mail (SMTP_URL)',
  sharp: 'file fields: an image uploaded or a thumbnail made',
  'file-type': 'file fields: an upload',
  'openid-client': 'AUTH_PROVIDERS',
  '@aws-sdk/client-s3': 'FILES_URL=s3://',
  standardwebhooks: 'a webhook delivery',
  piscina: 'a long SQLite read (a scan, a count, a search)',
};

/** The package of a module's file or URL (`@scope/name` or `name`), undefined outside node_modules. */
function packageOf(file: string): string | undefined {
  const match = /node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(file);
  return match?.[1];
}

const folder = mkdtempSync(join(tmpdir(), 'restock-start-'));
const log = join(folder, 'modules.log');
let server: RunningServer | undefined;
after(async () => {
  await server?.stop();
  rmSync(folder, { recursive: true, force: true });
});

test('a start with the default settings loads no optional package before it answers its first reads', async () => {
  const hook = fileURLToPath(new URL('./helpers/module-log.mjs', import.meta.url));
  server = await startServer(
    { DATABASE_URL: `sqlite:${join(folder, 'restock.db')}`, MODULE_LOG: log },
    ['--max-semi-space-size=2', '--import', hook, SERVER_ENTRY],
    { command: process.execPath },
  );
  const created = await fetch(`${server.url}/products/`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ name: 'A start' }),
  });
  assert.equal(created.status, 201, await created.clone().text());
  const { id } = (await created.json()) as { id: number };
  const read = await fetch(`${server.url}/products/${id}/`);
  assert.equal(read.status, 200);
  assert.equal(((await read.json()) as { name: string }).name, 'A start');

  const lines = readFileSync(log, 'utf8').split('\n');
  const loaded = new Set(lines.map(packageOf).filter(Boolean));
  // The log sees both loaders, else the test would pass for want of seeing anything: the app's
  // own ES modules (by the hook), and avvio, CommonJS that fastify requires (by Module._load).
  assert.ok(
    lines.some((line) => line.startsWith('file:') && line.endsWith('/dist/http/app.js')),
    'ES modules logged',
  );
  assert.ok(loaded.has('avvio'), 'CommonJS modules logged');
  const early = Object.keys(DEFERRED).filter((name) => loaded.has(name));
  assert.deepEqual(
    early.map((name) => `${name} (${DEFERRED[name]})`),
    [],
    'loaded by a start that does not use them',
  );
});
