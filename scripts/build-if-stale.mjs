// Runs before `npm start`: compiles src/ to dist/ when dist/ is missing or older than a
// source file, so that a fresh clone starts with `npm install && npm start`.
import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';

const newest = (dir) =>
  readdirSync(dir, { withFileTypes: true }).reduce((latest, entry) => {
    const path = join(dir, entry.name);
    const time = entry.isDirectory() ? newest(path) : statSync(path).mtimeMs;
    return Math.max(latest, time);
  }, 0);

const built = 'dist/server.js';
if (!existsSync(built) || statSync(built).mtimeMs < newest('src')) {
  process.stderr.write('restock: building dist/ from src/\n');
  execFileSync(process.execPath, ['node_modules/typescript/bin/tsc', '-p', 'tsconfig.build.json'], {
    stdio: 'inherit',
  });
}
