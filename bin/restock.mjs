#!/usr/bin/env node
// The `restock` command of a clone (`npx restock …`): brings dist/ up to date with src/,
// then runs the compiled command line.
import '../scripts/build-if-stale.mjs';

await import('../dist/server.js');
