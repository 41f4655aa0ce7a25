/**
 * Accounts have one home on each floor that holds them: src/records/accounts/ (passwords,
 * sign-in and its limits, tokens, signing keys, the check of a bearer token) and the SQL of
 * their tables in src/store/sql/accounts/. Each is reached through its entry, index.ts, alone:
 * what is inside can be split, renamed or grown (email flows, providers) without a change
 * anywhere else. This test reads every import in src/ and fails on one that reaches past an
 * entry, naming the file and the import.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { importedPath, importsOf, sources } from './helpers/src-imports.js';

/** The folders of accounts under src/, each entered through its index.ts only. */
const HOMES = ['records/accounts/', 'store/sql/accounts/'] as const;

/** Every import among `files` (path under src/ → source) of a file inside a home, from outside it, but its entry. */
export function pastEntries(files: ReadonlyMap<string, string>): string[] {
  const found: string[] = [];
  for (const [path, source] of files) {
    for (const specifier of importsOf(source)) {
      const target = importedPath(path, specifier);
      const home = HOMES.find((folder) => target.startsWith(folder) && !path.startsWith(folder));
      if (home !== undefined && target !== `${home}index.ts`) found.push(`src/${path} imports ${specifier}`);
    }
  }
  return found;
}

describe('the home of accounts', () => {
  it('is entered through its index.ts alone, from every other folder of src/', () => {
    assert.deepEqual(pastEntries(sources()), []);
  });

  it('has an entry in each of its folders, and files behind it', () => {
    const paths = [...sources().keys()];
    for (const home of HOMES) {
      assert.ok(paths.includes(`${home}index.ts`), `src/${home}index.ts`);
      assert.ok(paths.filter((path) => path.startsWith(home)).length > 1, `files in src/${home}`);
    }
  });

  it('is checked for real: an import past an entry is found, the entry and its own files are not', () => {
    const files = new Map([
      ['http/a.ts', "import { x } from '../records/accounts/index.js';\nimport { y } from '../records/accounts/y.js';"],
      ['commands/b.ts', "export { z } from '../records/accounts/z.js';"],
      ['records/accounts/y.ts', "import { z } from './z.js';\nimport { r } from '../refusal.js';"],
      ['records/accounts/index.ts', "export { y } from './y.js';"],
      ['store/sql/sql-store.ts', "import { s } from './accounts/index.js';\nimport { t } from './accounts/t.js';"],
      ['records/c.ts', "const d = await import('./accounts/d.js');"],
    ]);
    assert.deepEqual(pastEntries(files), [
      'src/http/a.ts imports ../records/accounts/y.js',
      'src/commands/b.ts imports ../records/accounts/z.js',
      'src/store/sql/sql-store.ts imports ./accounts/t.js',
      'src/records/c.ts imports ./accounts/d.js',
    ]);
  });
});
