// Runs before `npm start` and from bin/restock.mjs: compiles src/ to dist/ when dist/ is
// missing or older than a source file, so that a fresh clone starts with `npm install &&
// npm start`, and `npx restock …` works in it. Paths are the package's, whatever the cwd.
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

// An installed package has dist/ and no src/: it was built when it was packed.
const built = join(root, 'dist/server.js');
const sources = join(root, 'src');
if (existsSync(sources) && (!existsSync(built) || statSync(built).mtimeMs < newest(sources))) {
  process.stderr.write('restock: building dist/ from src/\n');
  // tsc reports on stdout; send it to stderr, which `restock export > file` keeps clean.
  for (const project of ['tsconfig.build.json', 'tsconfig.client.json']) {
    execFileSync(process.execPath, [join(root, 'node_modules/typescript/bin/tsc'), '-p', project], {
      cwd: root,
      stdio: ['ignore', process.stderr, 'inherit'],
    });
  }
}
