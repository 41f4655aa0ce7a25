/**
 * Which build of better-sqlite3 this Node.js loads. Version 13 is a Node-API module and the
 * only one that survives Node 24 (12 subclasses `node::ObjectWrap`, whose cleanup hook
 * aborts the process there when a statement is garbage-collected), but its binary crashes
 * on Node 20. So Node 20 loads 12, installed under the alias `better-sqlite3-node20`, and
 * every later Node loads 13. Both have the same API. Drop the alias with Node 20.
 */
import { createRequire } from 'node:module';
import type BetterSqlite3 from 'better-sqlite3';

const nodeMajor = Number(process.versions.node.split('.')[0]);

/** The package this process loads: `better-sqlite3` (13) from Node 22 on, the alias on Node 20. */
export const sqliteLibraryName = nodeMajor >= 22 ? 'better-sqlite3' : 'better-sqlite3-node20';

function load(): typeof BetterSqlite3 {
  try {
    return createRequire(import.meta.url)(sqliteLibraryName) as typeof BetterSqlite3;
  } catch (error) {
    // The alias is an optional dependency (a Node 22+ install need not build it), so a
    // Node 20 install that could not build it ends up here: say what to do in one line.
    throw new Error(
      `restock cannot load ${sqliteLibraryName} on Node.js ${process.version} (${(error as Error).message}); ` +
        'run `npm install` again with this Node.js, or use Node.js 22 or later',
    );
  }
}

/** The `Database` class of the better-sqlite3 build this Node.js runs. */
const Database = load();
export default Database;
