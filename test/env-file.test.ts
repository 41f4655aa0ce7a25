/**
 * `--env-file FILE`: settings from a file under the environment's and the flags', read by
 * every command; the example of docs/configuration.md served as written by the real
 * `restock` process; a file that cannot be read refused in one line.
 */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { COMMANDS, commandHelp, fullHelp } from '../src/commands/commands.js';
import { ConfigError, helpText, loadConfig } from '../src/config/index.js';
import { cli } from './helpers/cli.js';
import { runCommand, startServer } from './helpers/server.js';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
/** The `restock` command as a user runs it (`npx restock`): its shebang, its `--`, then dist/server.js. */
const RESTOCK = join(ROOT, 'bin/restock.mjs');

const dir = mkdtempSync(join(tmpdir(), 'restock-env-file-'));
after(() => rmSync(dir, { recursive: true, force: true }));

/** Writes `text` to a new file of the test's folder and answers its path. */
function file(name: string, text: string): string {
  const path = join(dir, name);
  writeFileSync(path, text);
  return path;
}

/** The settings file docs/configuration.md shows, as written. */
function documentedFile(): string {
  const document = readFileSync(join(ROOT, 'docs/configuration.md'), 'utf8');
  const example = /```sh\n(# restock\.env\n[\s\S]*?)```/.exec(document)?.[1];
  assert.ok(example, 'docs/configuration.md shows a settings file');
  return example;
}

/**
 * Runs `restock …` as a process and answers its exit code and output, whatever the code. The
 * line bin/restock.mjs prints when it compiles a stale dist/ first is left out: what is
 * stale depends on who edited src/ last, not on the command.
 */
async function restock(args: string[], cwd = ROOT) {
  const withoutBuild = (stderr: string) => stderr.replace(/^restock: building dist\/ from src\/\n/m, '');
  try {
    const { stdout, stderr } = await promisify(execFile)(RESTOCK, args, { cwd });
    return { code: 0, stdout, stderr: withoutBuild(stderr) };
  } catch (error) {
    const failed = error as { code: number; stdout: string; stderr: string };
    return { code: failed.code, stdout: failed.stdout, stderr: withoutBuild(failed.stderr) };
  }
}

describe('--env-file', () => {
  it('reads settings under the environment, which flags are over; a later file over an earlier one', () => {
    const first = file('first.env', 'PORT=4001\nHOST=0.0.0.0\nLOG_LEVEL=warn\nBODY_LIMIT=2000\n');
    const second = file(
      'second.env',
      '# a comment\nexport PORT=4002\nCORS_ORIGIN="https://a.example, https://b.example"\n',
    );
    const { config } = loadConfig(['--env-file', first, `--env-file=${second}`, '--log-level', 'error'], {
      HOST: '127.0.0.2',
      BODY_LIMIT: '',
    });
    assert.equal(config.port, 4002, 'the later file');
    assert.equal(config.host, '127.0.0.2', 'the environment over the file');
    assert.equal(config.logLevel, 'error', 'the flag over the file');
    assert.equal(config.bodyLimit, 2000, 'an empty variable leaves the file’s value');
    assert.equal(config.corsOrigin, 'https://a.example, https://b.example');
    assert.equal(loadConfig([], {}).config.port, 3000, 'no file, no change');
  });

  it('refuses a file it cannot read in one line naming it, before anything else', () => {
    const refused = (argv: string[], message: string) =>
      assert.throws(
        () => loadConfig(argv, {}),
        (e: Error) => e instanceof ConfigError && e.message === message,
      );
    refused(
      ['--env-file', join(dir, 'missing.env')],
      `--env-file: cannot read ${join(dir, 'missing.env')}: no such file`,
    );
    refused(['--env-file', dir], `--env-file: cannot read ${dir}: it is a folder`);
    refused(['--env-file='], '--env-file needs a FILE');
  });

  it('refuses a name in the file that is no setting, naming the file and the setting meant', () => {
    const refused = (text: string, message: string) => {
      const path = file('unknown.env', text);
      assert.throws(
        () => loadConfig(['--env-file', path], {}),
        (e: Error) => e instanceof ConfigError && e.message === `--env-file ${path}: ${message}`,
      );
    };
    refused('PORT=4000\nPROT=4520\n', 'PROT is not a setting; did you mean PORT?');
    refused('API_KEY=shop:write:k\n', 'API_KEY is not a setting; did you mean API_KEYS?');
    refused('FROBNICATE=1\n', 'FROBNICATE is not a setting (restock --help lists them)');
  });

  it('is taken by every command, and their --help says so', async () => {
    const database = join(dir, 'migrated.db');
    const settings = file('migrate.env', `DATABASE_URL=sqlite:${database}\n`);
    const migrated = await cli('sqlite::memory:', ['migrate', '--env-file', settings], '', { DATABASE_URL: '' });
    assert.match(migrated.stdout, /^created the sqlite database at sqlite:\S+migrated\.db: \d+ migrations applied/);
    for (const help of [fullHelp(), helpText(), ...COMMANDS.map((command) => commandHelp(command))]) {
      assert.match(help, /--env-file FILE +read settings from FILE/);
    }
  });

  it('serves the example of docs/configuration.md as written', async () => {
    const cwd = mkdtempSync(join(dir, 'serve-'));
    writeFileSync(join(cwd, 'restock.env'), documentedFile());
    // startServer sets LOG_LEVEL=info in the environment, over the file's warn: the line it waits for is logged at info.
    const server = await startServer({}, ['serve', '--env-file', 'restock.env'], { command: RESTOCK, cwd });
    try {
      assert.equal((await fetch(`${server.url}/users/`)).status, 401, "the file's API_KEYS hold");
      const shop = { authorization: 'Bearer change-me-shop-key' };
      assert.equal((await fetch(`${server.url}/users/`, { headers: shop })).status, 200);
      assert.match(readFileSync(join(cwd, 'restock.env'), 'utf8'), /^DATABASE_URL=sqlite:\.\/data\/restock\.db$/m);
      assert.ok(
        readFileSync(join(cwd, 'data/restock.db')).length > 0,
        'the database the file names, from the working folder',
      );
    } finally {
      assert.equal(await server.stop(), 0);
    }
  });

  it('stops the restock process in one line, exit code 1, for a file that is missing or a folder', async () => {
    const missing = await restock(['serve', '--env-file', 'no-such.env'], dir);
    assert.deepEqual(missing, {
      code: 1,
      stdout: '',
      stderr: 'restock: --env-file: cannot read no-such.env: no such file\n',
    });
    const folder = await restock(['migrate', '--env-file', dir]);
    assert.equal(folder.code, 1);
    assert.equal(folder.stderr, `restock: --env-file: cannot read ${dir}: it is a folder\n`);
  });

  it('stops the restock process in one line for a misspelt name in the environment or the file', async () => {
    const settings = file('slip.env', 'DATABSE_URL=postgres://127.0.0.1/shop\n');
    const fromFile = await restock(['serve', '--env-file', settings]);
    assert.deepEqual(fromFile, {
      code: 1,
      stdout: '',
      stderr: `restock: --env-file ${settings}: DATABSE_URL is not a setting; did you mean DATABASE_URL?\n`,
    });
    const served = await runCommand(['serve'], { API_KEY: 'shop:write:k', PROT: '4520' });
    assert.equal(served.code, 1);
    assert.match(served.stderr, /^restock: (API_KEY|PROT) is not a setting; did you mean (API_KEYS|PORT)\? [^\n]*\n$/);
    const migrated = await runCommand(['migrate'], { DATABSE_URL: 'postgres://127.0.0.1/shop' });
    assert.equal(migrated.code, 1);
    assert.match(migrated.stderr, /^restock: DATABSE_URL is not a setting; did you mean DATABASE_URL\? /);
  });

  it('names in serve --help the collections of the SCHEMAS the file sets', async () => {
    const settings = file('shop.env', 'SCHEMAS=./schemas/shop\n');
    const { code, stdout } = await restock(['serve', '--env-file', settings, '--help']);
    assert.equal(code, 0);
    assert.equal(stdout.split('\n', 1)[0], 'restock: a REST service for orders, products and users');
  });
});
