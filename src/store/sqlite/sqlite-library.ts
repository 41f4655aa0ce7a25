/**
 * Which build of better-sqlite3 this Node.js loads. Version 13 is a Node-API module and the
 * only one that survives Node 24 (12 subclasses `node::ObjectWrap`, whose cleanup hook
 * aborts the process there when a statement is garbage-collected), but its binary crashes
 * on Node 20. So Node 20 loads 12 through `restock-sqlite-node20` (packages/sqlite-node20),
 * and every later Node loads 13. Both have the same API. Each is an optional dependency whose
 * "engines" names its Node lines, so an install fetches and builds only the one it loads.
 * Installed from the packed tarball, npm leaves the `file:` package's own dependency out, and
 * `require('better-sqlite3')` in it finds restock's: the optional `^12 || ^13`, for which npm
 * picks the newest version whose "engines" accept the installing Node (12 on Node 20).
 * Drop the Node 20 package with Node 20.
 */
import { createRequire } from 'node:module';
import type BetterSqlite3 from 'better-sqlite3';

const nodeMajor = Number(process.versions.node.split('.')[0]);

/** The package this process loads: `better-sqlite3` (13) from Node 22 on, 12's own package on Node 20. */
export const sqliteLibraryName = nodeMajor >= 22 ? 'better-sqlite3' : 'restock-sqlite-node20';

/** What to do, in one line. */
const REMEDY =
  nodeMajor >= 22
    ? 'run `npm install` again with this Node.js'
    : 'run `npm install` again with this Node.js, or use Node.js 22 or later';

function load(): typeof BetterSqlite3 {
  try {
    return createRequire(import.meta.url)(sqliteLibraryName) as typeof BetterSqlite3;
  } catch (error) {
    // Both bindings are optional dependencies that npm installs only on their own Node lines:
    // a tree installed by another Node.js, or a build that failed, ends up here.
    throw new Error(
      `restock cannot load ${sqliteLibraryName} on Node.js ${process.version} (${(error as Error).message}); ${REMEDY}`,
    );
  }
}

/** The `Database` class of the better-sqlite3 build this Node.js runs. */
const Database = load();
export default Database;
