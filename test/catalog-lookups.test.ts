/**
 * The catalog is the only place that matches collections up by name (src/core/catalog.ts):
 * every other file finds a collection through its lookups (by plural, by singular, by a
 * path's segment), or holds the collection itself (a reference's target, a map keyed by the
 * `Collection`). This test reads every file of src/ for the ways of matching by name that
 * the code once had, and checks that the catalog's references hold its own collections.
 */
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { defaultConfig } from '../src/config/index.js';
import { loadCatalog } from '../src/core/load-catalog.js';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
/** The one file allowed to match collections by name. */
const CATALOG = 'src/core/catalog.ts';

const NAME = String.raw`[\w.?]+\.(?:plural|singular)`;

/** Each way of matching a collection by name, with what to do instead. */
const PATTERNS: readonly { what: string; instead: string; pattern: RegExp }[] = [
  {
    what: 'a search of a list for a collection by name',
    instead: "the catalog's byPlural, bySingular or byPath",
    pattern: /\.(?:find|findIndex|filter|some)\(\s*\(?\w+\)?\s*=>[^)]*\.(?:plural|singular)\s*[!=]==/,
  },
  {
    what: 'a map or set keyed by a collection name',
    instead: 'catalog.perCollection, or a Map keyed by the Collection',
    pattern: new RegExp(String.raw`new (?:Map|Set)\b[^;]*\[\s*${NAME}\s*,`),
  },
  {
    what: 'a map, set or list looked into by a collection name',
    instead: "the Collection itself as the key, or the catalog's lookups",
    pattern: new RegExp(String.raw`\.(?:get|has|includes|indexOf)\(\s*${NAME}\s*\)(?!\.)`),
  },
  {
    what: 'a comparison of collection names',
    instead: 'a comparison of the Collections themselves',
    pattern: new RegExp(
      String.raw`${NAME}\s*[!=]==\s*(?!undefined\b|null\b)[\w'"\x60]|(?<!undefined|null)\s[!=]==\s*${NAME}\b`,
    ),
  },
];

/** Every statement-sized piece of `text` that matches `pattern`, with its line. */
function matches(text: string, pattern: RegExp): { line: number; text: string }[] {
  const found: { line: number; text: string }[] = [];
  const global = new RegExp(pattern.source, 'g');
  for (const match of text.matchAll(global)) {
    const line = text.slice(0, match.index).split('\n').length;
    found.push({ line, text: (text.split('\n')[line - 1] ?? '').trim() });
  }
  return found;
}

function sourceFiles(folder: string): string[] {
  return readdirSync(folder, { withFileTypes: true }).flatMap((entry) => {
    const path = join(folder, entry.name);
    if (entry.isDirectory()) return sourceFiles(path);
    return entry.name.endsWith('.ts') ? [path] : [];
  });
}

describe('the catalog is the only lookup of a collection by name', () => {
  it('finds each pattern in the lines it was written against', () => {
    // The lines the code had before the catalog took every lookup: each must be caught.
    const before = [
      'const collection = catalog.collections.find((c) => c.plural === name || c.singular === name);',
      'const target = collections.find((c) => c.plural === reference.target);',
      'const accessOf = new Map(catalog.collections.map((c) => [c.plural, new RecordAccess(c)]));',
      'const byName = new Map(\n  catalog.collections.map((c) => [c.plural, recordPrograms(dialect, c, catalog)]),\n);',
      'const contextOf = (operation) => contexts.get(operation.collection.plural) as OperationContext;',
      'if (collection === hub.collection.plural) void hub.pump();',
      'if (reference.target.plural !== name) continue;',
    ];
    for (const line of before) {
      assert.ok(
        PATTERNS.some(({ pattern }) => matches(line, pattern).length > 0),
        `no pattern catches: ${line}`,
      );
    }
    // And what is not a lookup passes: a name written out, an absent singular, a lookup through the catalog.
    const fine = [
      'values: [reference.collection.plural, reference.name, reference.target.plural],',
      '...(schema.singular !== undefined && { singular: schema.singular }),',
      'const collection = catalog.byPath(name);',
      'const found = store.collection(reference.target);',
    ];
    for (const line of fine) {
      assert.deepEqual(
        PATTERNS.filter(({ pattern }) => matches(line, pattern).length > 0).map(({ what }) => what),
        [],
        line,
      );
    }
  });

  it('finds none of them in src/ outside the catalog', () => {
    const files = sourceFiles(join(ROOT, 'src')).map((path) => relative(ROOT, path).replaceAll('\\', '/'));
    assert.ok(files.length > 100, `src/ holds ${files.length} files`);
    const found: string[] = [];
    for (const file of files.filter((f) => f !== CATALOG)) {
      const text = readFileSync(join(ROOT, file), 'utf8');
      for (const { what, instead, pattern } of PATTERNS) {
        for (const hit of matches(text, pattern))
          found.push(`${file}:${hit.line}: ${what} (${hit.text}); use ${instead}`);
      }
    }
    assert.deepEqual(found, [], `collections matched by name outside ${CATALOG}:\n${found.join('\n')}`);
  });

  it('resolves each reference to the collections of the catalog itself', () => {
    const catalog = loadCatalog(defaultConfig({ schemas: join(ROOT, 'schemas/shop') }));
    const members = new Set(catalog.collections);
    const references = catalog.collections.flatMap((collection) => collection.references);
    assert.ok(references.length > 0, 'the shop declares references');
    for (const reference of references) {
      assert.ok(members.has(reference.collection), `${reference.name}: its collection is the catalog's`);
      assert.ok(members.has(reference.target), `${reference.name}: its target is the catalog's`);
      assert.ok(reference.collection.references.includes(reference));
      assert.ok(reference.target.referrers.includes(reference), `${reference.name} is among its target's referrers`);
    }
    for (const collection of catalog.collections) {
      assert.equal(catalog.byPlural(collection.plural), collection);
      assert.equal(catalog.bySingular(collection.singular), collection);
      assert.equal(catalog.byPath(collection.plural), collection);
      assert.equal(catalog.byPath(collection.singular), collection);
      assert.equal(catalog.bySingular(collection.plural), undefined);
      assert.equal(catalog.byPlural(collection.singular), undefined);
    }
    assert.equal(catalog.byPath('batch'), undefined);
  });
});
