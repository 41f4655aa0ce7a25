/**
 * The files CI runs on each Node.js line (scripts/test-files.mjs): shared out among the
 * lines, every test file still runs in a CI run, the runtime's own on every line and each
 * other file on exactly one. And the test groups (scripts/test-groups.mjs): every test file
 * in exactly one, each with its `npm run test:<group>`, as CONTRIBUTING.md's table says.
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import { groupFiles, TEST_GROUPS } from '../scripts/test-groups.mjs';

/** The files scripts/test-files.mjs lists for the shard `shard`, as CI sets it. */
function filesOf(shard: string | undefined): string[] {
  const env = { ...process.env, RESTOCK_TEST_SHARD: shard, RESTOCK_TEST_TIMES_FROM: '' };
  if (shard === undefined) delete env.RESTOCK_TEST_SHARD;
  return execFileSync(process.execPath, ['scripts/test-files.mjs'], { env, encoding: 'utf8' }).trim().split(' ');
}

const ALL = readdirSync('test')
  .filter((name) => name.endsWith('.test.ts'))
  .map((name) => `test/${name}`)
  .sort();

describe('the test files of a CI line', () => {
  it('are every file without a shard, as npm test on a machine runs them', () => {
    assert.deepEqual(filesOf(undefined).sort(), ALL);
  });

  for (const lines of [4, 3, 2, 1]) {
    it(`cover every file in a run of ${lines} line(s): the runtime's on each, the others on one`, () => {
      const runs = new Map<string, number>();
      for (let shard = 0; shard < lines; shard++) {
        for (const file of filesOf(`${shard}/${lines}`)) runs.set(file, (runs.get(file) ?? 0) + 1);
      }
      assert.deepEqual([...runs.keys()].sort(), ALL);
      for (const file of ['test/crash.test.ts', 'test/store.test.ts', 'test/node-runtime.test.ts']) {
        assert.equal(runs.get(file), lines, `${file} runs on every line`);
      }
      assert.equal(runs.get('test/console.browser.test.ts'), 1, 'the browser suite runs once');
      assert.ok([...runs.values()].every((count) => count === 1 || count === lines));
    });
  }
});

/** CONTRIBUTING.md's test groups table: each row's group name (in backticks) and the files it names. */
function contributingGroups(): Map<string, string[]> {
  const rows = readFileSync('CONTRIBUTING.md', 'utf8')
    .split('\n')
    .filter((line) => /^\| `[\w-]+`:/.test(line));
  return new Map(
    rows.map((row) => {
      const [group, files] = row.split('|').slice(1, 3) as [string, string];
      // A file's name may be followed by a note in brackets; "a and b" names two.
      const names = files
        .replace(/\s*\([^)]*\)/g, '')
        .split(/,| and /)
        .map((name) => name.trim());
      return [/`([\w-]+)`/.exec(group)?.[1] as string, names];
    }),
  );
}

describe('the test groups', () => {
  const groups = TEST_GROUPS;

  it('hold every test file, each in exactly one group', () => {
    const files = Object.keys(groups).flatMap((group) => groupFiles(group));
    assert.deepEqual([...files].sort(), ALL);
    assert.equal(new Set(files).size, files.length, 'no file is in two groups');
  });

  it("are CONTRIBUTING.md's table, row for row, with the same files", () => {
    const table = contributingGroups();
    assert.deepEqual([...table.keys()], Object.keys(groups));
    for (const [group, names] of table) assert.deepEqual(names, groups[group], `the row of ${group}`);
  });

  it('each run by npm run test:<group>, which lists its files', () => {
    const scripts = JSON.parse(readFileSync('package.json', 'utf8')).scripts as Record<string, string>;
    const named = Object.keys(scripts).filter((name) => /^test:/.test(name) && name !== 'test:times');
    assert.deepEqual(
      named,
      Object.keys(groups).map((group) => `test:${group}`),
    );
    for (const group of Object.keys(groups)) {
      assert.equal(scripts[`test:${group}`], `node scripts/test-groups.mjs ${group}`);
      const listed = execFileSync(process.execPath, ['scripts/test-groups.mjs', '--list', group], { encoding: 'utf8' });
      assert.deepEqual(listed.trim().split(' '), groupFiles(group));
    }
  });

  it('refuses a group that does not exist, naming those that do', () => {
    assert.throws(
      () => execFileSync(process.execPath, ['scripts/test-groups.mjs', 'nope'], { encoding: 'utf8', stdio: 'pipe' }),
      (error: { status: number; stderr: string }) =>
        error.status === 2 && /the groups: contract, storage/.test(error.stderr),
    );
  });
});
