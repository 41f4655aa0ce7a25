// Runs before `npm start`, `npm test` and from bin/restock.mjs: compiles src/ to dist/ (and
// the client package's) when dist/ is missing or older than a source file, so that a fresh
// clone starts with `npm install && npm start`, and `npx restock …` works in it. Paths are the package's, whatever the cwd.
// An installed package (`npm pack` builds it first) has no src/ and is left as it is.
import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const newest = (dir) =>
  readdirSync(dir, { withFileTypes: true }).reduce((latest, entry) => {
    const path = join(dir, entry.name);
    const time = entry.isDirectory() ? newest(path) : statSync(path).mtimeMs;
    return Math.max(latest, time);
  }, 0);

const tsc = (project) => {
  // tsc reports on stdout; send it to stderr, which `restock export > file` keeps clean.
  execFileSync(process.execPath, [join(root, 'node_modules/typescript/bin/tsc'), '-p', project], {
    cwd: root,
    stdio: ['ignore', process.stderr, 'inherit'],
  });
};
const stale = (sources, built) =>
  existsSync(sources) && (!existsSync(built) || statSync(built).mtimeMs < newest(sources));

// The client package first: restock's own sources import it, as `restock-client`, from its dist/.
if (stale(join(root, 'packages/client/src'), join(root, 'packages/client/dist/index.js'))) {
  process.stderr.write('restock: building packages/client/dist/ from packages/client/src/\n');
  tsc('packages/client');
}
// An installed package has dist/ and no src/: it was built when it was packed.
if (stale(join(root, 'src'), join(root, 'dist/server.js'))) {
  process.stderr.write('restock: building dist/ from src/\n');
  for (const project of ['tsconfig.build.json', 'tsconfig.client.json']) tsc(project);
}
