/**
 * The package as people install it (process): `npm pack` builds and packs it, the tarball
 * installs into an empty folder, and there `restock` serves the API, the console and the
 * docs, and its bin answers. Slow (a real install from the npm registry or its cache, which
 * compiles the SQLite driver), so it is one test.
 *
 * It packs a copy of the clone, dist/ included with its times: packing builds dist/ when a
 * source is newer, and the copy's, not the one the other test files, running beside this
 * one, start servers from. Where the machine has ccache, the install compiles through it,
 * so that a second run does not compile SQLite again (CI installs it).
 */
import assert from 'node:assert/strict';
import { execFile, execFileSync } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { startServer } from './helpers/server.js';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const run = promisify(execFile);

/** What the copy leaves out: installed and local files. */
const NOT_COPIED = new Set(['node_modules', 'data', '.git', 'test-artifacts']);

function hasCcache(): boolean {
  try {
    execFileSync('ccache', ['--version'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

/** Runs npm with the Node.js running this test first on the PATH, as CI's Node lines need. */
function npm(args: string[], cwd: string) {
  const path = `${join(process.execPath, '..')}:${process.env.PATH}`;
  const compilers = hasCcache() ? { CC: 'ccache gcc', CXX: 'ccache g++' } : {};
  return run('npm', args, { cwd, env: { ...process.env, ...compilers, PATH: path }, maxBuffer: 64 * 1024 * 1024 });
}

describe('the package', () => {
  it('packs, installs into an empty folder and serves there, and its bin answers --version', async () => {
    const work = mkdtempSync(join(tmpdir(), 'restock-package-'));
    const clone = join(work, 'clone');
    cpSync(ROOT, clone, {
      recursive: true,
      preserveTimestamps: true,
      filter: (path) => !NOT_COPIED.has(relative(ROOT, path)),
    });
    symlinkSync(join(ROOT, 'node_modules'), join(clone, 'node_modules'));
    await npm(['pack', '--pack-destination', work], clone);
    const tarball = join(work, readdirSync(work).find((name) => name.endsWith('.tgz')) ?? 'none');

    const app = join(work, 'app');
    mkdirSync(app);
    writeFileSync(join(app, 'package.json'), '{ "name": "a-shop", "private": true }');
    await npm(['install', '--no-audit', '--no-fund', tarball], app);

    const server = await startServer({}, [], { command: join(app, 'node_modules/.bin/restock'), cwd: app });
    try {
      const health = await fetch(`${server.url}/healthz`);
      assert.equal(health.status, 200);
      const page = await fetch(`${server.url}/`, { headers: { accept: 'text/html' } });
      assert.match(await page.text(), /<html/);
      assert.equal((await fetch(`${server.url}/console/console.js`)).status, 200);
      assert.equal((await fetch(`${server.url}/docs/`)).status, 200);
      assert.equal((await fetch(`${server.url}/openapi.json`)).status, 200);
      const created = await fetch(`${server.url}/user/`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: '{"name": "first customer"}',
      });
      assert.equal(created.status, 201);
    } finally {
      assert.equal(await server.stop(), 0);
    }
    assert.ok(readdirSync(join(app, 'data')).includes('restock.db'), 'the database is made in the working folder');

    // The bin as npm links it (a global install links the same file into its prefix's bin;
    // a second install would only compile SQLite again).
    const { stdout } = await run(join(app, 'node_modules/.bin/restock'), ['--version'], {
      env: { ...process.env, PATH: `${join(process.execPath, '..')}:${process.env.PATH}` },
    });
    const { version } = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { version: string };
    assert.match(stdout, new RegExp(version.replaceAll('.', '\\.')));
    rmSync(work, { recursive: true, force: true });
  });
});
