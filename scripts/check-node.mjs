// Runs first in `npm start` and in the `restock` bin: on a Node.js that package.json's
// "engines" does not name, refuse in one line before anything can fail in a stranger way
// (better-sqlite3 aborting the process, say). Plain JavaScript that old Node versions parse.
import { readFileSync } from 'node:fs';
import semver from 'semver';

const { engines } = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8'));

/** The one line that refuses Node.js `version` when `range` does not take it; else undefined. */
export function unsupportedNodeMessage(version, range = engines.node) {
  if (semver.satisfies(version, range)) return undefined;
  // "^20.19.0 || ^24.0.0" reads as "20 (20.19.0 or later), 24".
  const lines = new semver.Range(range).set.map((comparators) => {
    const lowest = semver.minVersion(comparators.map(String).join(' '));
    return lowest.minor === 0 && lowest.patch === 0 ? `${lowest.major}` : `${lowest.major} (${lowest} or later)`;
  });
  return `restock: Node.js ${version} is not supported; use Node.js ${lines.join(', ')} (package.json engines: "${range}")`;
}

const refusal = unsupportedNodeMessage(process.version);
if (refusal) {
  process.stderr.write(`${refusal}\n`);
  process.exit(1);
}
