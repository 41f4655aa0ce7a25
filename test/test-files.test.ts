/**
 * The files CI runs on each Node.js line (scripts/test-files.mjs): shared out among the
 * lines, every test file still runs in a CI run, the runtime's own on every line and each
 * other file on exactly one.
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { describe, it } from 'node:test';

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
