/**
 * The floors of src/, kept by the code rather than by review: core, then config, then store,
 * then records, then api (the API's description: its problem types and the OpenAPI document),
 * then http and commands side by side, then the server. A module may import its own floor and
 * those below it, never one above nor one beside it (docs/architecture.md says why each floor
 * sits where it does). records/ is what can be done with records without HTTP, so it imports
 * no web framework.
 * Beside them, the client (packages/client/src/, which src/client/ re-exports) stands alone: it
 * runs in browsers, so it imports nothing else.
 * Inside every floor and folder, imports make no circle.
 */
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join, posix } from 'node:path';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { importedPath, importsOf, sources } from './helpers/src-imports.js';

/** Each floor's height: a floor imports only lower ones and its own; two of one height never meet. */
const HEIGHTS = { core: 0, config: 1, store: 2, records: 3, api: 4, http: 5, commands: 5, server: 6 } as const;
type Floor = keyof typeof HEIGHTS;
const FLOORS = Object.keys(HEIGHTS) as Floor[];

/** The packages of the web framework, which records/ does without. */
const WEB = /^(fastify|fastify-plugin|@fastify\/.*)$/;

/** The files at the top of src/ that are not a folder's: the process itself. */
const SERVER_FILES = new Set(['server.ts', 'main.ts', 'cluster.ts']);

/** The folder of the client, which is on no floor. */
const CLIENT = 'client';

/** The floor of a file, by its path under src/; undefined for a file that is on none. */
export function floorOf(path: string): Floor | undefined {
  const [top, ...rest] = path.split('/');
  if (top === CLIENT) return undefined;
  if (rest.length === 0) return SERVER_FILES.has(top ?? '') ? 'server' : undefined;
  return FLOORS.find((floor) => floor === top && floor !== 'server');
}

/** Whether a module on floor `from` may import one on floor `to`. */
function mayImport(from: Floor, to: Floor): boolean {
  return from === to || HEIGHTS[to] < HEIGHTS[from];
}

/** Every arrow up a floor or across to one beside among `files` (path → source), as "file → import (floor → floor)". */
export function arrowsUp(files: ReadonlyMap<string, string>): string[] {
  const found: string[] = [];
  for (const [path, source] of files) {
    const from = floorOf(path);
    if (from === undefined) continue;
    for (const specifier of importsOf(source)) {
      const to = floorOf(importedPath(path, specifier));
      if (to !== undefined && !mayImport(from, to)) {
        found.push(`src/${path} imports ${specifier} (${from} → ${to})`);
      }
    }
  }
  return found;
}

/** Every import of the web framework by a file of records/ among `files`, as "file imports package". */
export function webImportsInRecords(files: ReadonlyMap<string, string>): string[] {
  return [...files].flatMap(([path, source]) =>
    floorOf(path) === 'records'
      ? ts
          .preProcessFile(source, true, true)
          .importedFiles.filter((file) => WEB.test(file.fileName))
          .map((file) => `src/${path} imports ${file.fileName}`)
      : [],
  );
}

/**
 * Every circle of imports among `files` (type-only ones too), each as its files in order:
 * a circle makes its files one piece that can only be understood, tested or moved whole.
 */
export function circlesOf(files: ReadonlyMap<string, string>): string[][] {
  const edges = new Map<string, string[]>();
  for (const [path, source] of files) {
    const targets = importsOf(source).map((specifier) => importedPath(path, specifier));
    edges.set(
      path,
      targets.filter((target) => files.has(target)),
    );
  }
  // Tarjan's strongly connected components: each of more than one file, or a file importing itself, is a circle.
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const circles: string[][] = [];
  const visit = (path: string) => {
    index.set(path, index.size);
    low.set(path, index.get(path) as number);
    stack.push(path);
    for (const target of edges.get(path) ?? []) {
      if (!index.has(target)) visit(target);
      if (stack.includes(target)) low.set(path, Math.min(low.get(path) as number, low.get(target) as number));
    }
    if (low.get(path) !== index.get(path)) return;
    const component = stack.splice(stack.indexOf(path));
    if (component.length > 1 || edges.get(path)?.includes(path)) circles.push(component.sort());
  };
  for (const path of [...files.keys()].sort()) if (!index.has(path)) visit(path);
  return circles.sort((a, b) => (a[0] as string).localeCompare(b[0] as string));
}

describe('the floors of src/', () => {
  it('hold every file: a file on no floor could import anything', () => {
    const homeless = [...sources().keys()].filter((path) => floorOf(path) === undefined && !isClient(path));
    assert.deepEqual(homeless, [], `put these under ${FLOORS.slice(0, -1).join(', ')}/ or beside server.ts`);
  });

  it('are never climbed: no module imports a floor above its own, or one beside it', () => {
    assert.deepEqual(arrowsUp(sources()), []);
  });

  it('keep the web framework off records/: what records can do is the same without HTTP', () => {
    assert.deepEqual(webImportsInRecords(sources()), []);
  });

  it('are checked for the web framework for real: records/ importing it is found, http/ may', () => {
    const files = new Map([
      ['records/a.ts', "import type { FastifyReply } from 'fastify';\nimport { b } from './b.js';"],
      ['records/b.ts', "import fp from 'fastify-plugin';\nimport cors from '@fastify/cors';\nimport 'node:fs';"],
      ['http/c.ts', "import Fastify from 'fastify';"],
    ]);
    assert.deepEqual(webImportsInRecords(files), [
      'src/records/a.ts imports fastify',
      'src/records/b.ts imports fastify-plugin',
      'src/records/b.ts imports @fastify/cors',
    ]);
  });

  it('are checked for real: an arrow up is found, with its file and import', () => {
    const files = new Map([
      ['core/a.ts', "import type { B } from '../store/b.js';\nexport const a = 1;"],
      ['store/b.ts', "import { a } from '../core/a.js';\nexport { c } from '../http/c.js';"],
      ['http/c.ts', "const d = await import('../commands/d.js');\nimport { a } from '../core/a.js';"],
      ['config/e.ts', "import {\n  a,\n} from '../core/a.js';\nimport '../server.js';"],
      ['commands/f.ts', "import { g } from '../http/g.js';\nimport { h } from '../records/h.js';"],
      ['api/i.ts', "import { j } from '../http/j.js';\nimport { h } from '../records/h.js';"],
    ]);
    assert.deepEqual(arrowsUp(files), [
      'src/core/a.ts imports ../store/b.js (core → store)',
      'src/store/b.ts imports ../http/c.js (store → http)',
      'src/http/c.ts imports ../commands/d.js (http → commands)',
      'src/config/e.ts imports ../server.js (config → server)',
      'src/commands/f.ts imports ../http/g.js (commands → http)',
      'src/api/i.ts imports ../http/j.js (api → http)',
    ]);
  });
});

describe('the imports of src/', () => {
  it('make no circle, inside a folder either, type-only imports included', () => {
    assert.deepEqual(circlesOf(sources()), []);
  });

  it('are checked for circles for real: a circle of two and one of three are found', () => {
    const files = new Map([
      ['store/a.ts', "import type { B } from './b.js';"],
      ['store/b.ts', "import { a } from './a.js';"],
      ['http/c.ts', "import { d } from './d.js';\nimport { a } from '../store/a.js';"],
      ['http/d.ts', "export { e } from './sub/e.js';"],
      ['http/sub/e.ts', "const c = await import('../c.js');"],
      ['core/f.ts', "import { b } from '../store/b.js';"],
    ]);
    assert.deepEqual(circlesOf(files), [
      ['http/c.ts', 'http/d.ts', 'http/sub/e.ts'],
      ['store/a.ts', 'store/b.ts'],
    ]);
  });
});

describe('the client (packages/client/src/, re-exported by src/client/)', () => {
  it('imports only its own files, and no Node.js module, so that a browser can load it', () => {
    const strays: string[] = [];
    for (const [path, source] of clientSources()) {
      const all = ts.preProcessFile(source, true, true).importedFiles.map((file) => file.fileName);
      for (const specifier of all) {
        if (!specifier.startsWith('./')) strays.push(`packages/client/src/${path} imports ${specifier}`);
      }
    }
    for (const [path, source] of sources()) {
      if (!isClient(path)) continue;
      const all = ts.preProcessFile(source, true, true).importedFiles.map((file) => file.fileName);
      for (const specifier of all) if (specifier !== 'restock-client') strays.push(`src/${path} imports ${specifier}`);
    }
    assert.deepEqual(strays, []);
  });

  it('is imported by no floor', () => {
    const users = [...sources()].filter(
      ([path, source]) =>
        !isClient(path) &&
        importsOf(source).some((specifier) => isClient(posix.normalize(posix.join(posix.dirname(path), specifier)))),
    );
    assert.deepEqual(
      users.map(([path]) => path),
      [],
    );
  });
});

/** The client package's own sources, by path under packages/client/src/ (one folder, no deeper). */
function clientSources(): Map<string, string> {
  const dir = fileURLToPath(new URL('../packages/client/src/', import.meta.url));
  const names = readdirSync(dir).filter((name) => name.endsWith('.ts'));
  return new Map(names.map((name) => [name, readFileSync(join(dir, name), 'utf8')]));
}

function isClient(path: string): boolean {
  return path.split('/')[0] === CLIENT;
}
