#!/usr/bin/env node
/**
 * The restock process's entry (`npm start`, bin/restock.mjs, the tests' servers): turns on
 * Node.js's compile cache, then loads the process itself (./main.ts). The cache must be on
 * before the app's modules are read, which a static import would read first: so this file
 * imports nothing else, and main.js is imported once the cache is on.
 */
import { enableCompileCache } from './core/compile-cache.js';

enableCompileCache();
await import('./main.js');
