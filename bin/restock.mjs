#!/usr/bin/env -S node --max-semi-space-size=2 --
// The `restock` command of a clone (`npx restock …`): refuses a Node.js the package does not
// support, brings dist/ up to date with src/, then runs the compiled command line. The V8
// flag is the one `npm start` passes: a young generation of 2 MB instead of 16 keeps a busy
// server's memory down (bench/README.md). The `--` ends Node.js's own options: without it,
// Node.js reads `--env-file FILE` among the command's arguments too, and stops at a missing
// FILE with its own message before restock can give its own.
import { readFileSync } from 'node:fs';
import module from 'node:module';

// `--version` answers from package.json alone: loading the app (and checking the build)
// for it took most of a second, and several on a slow disk.
if (['--version', '-v', 'version'].includes(process.argv[2] ?? '')) {
  const { version } = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8'));
  process.stdout.write(`restock ${version}\n`);
} else {
  // Node.js's compile cache (22.1 and later), on before anything else is read; dist/server.js
  // turns it on too, for `npm start`. Absent on Node 20, and never a reason to fail.
  try {
    module.enableCompileCache?.();
  } catch {}
  await import('../scripts/check-node.mjs');
  await import('../scripts/build-if-stale.mjs');
  await import('../dist/server.js');
}
