/**
 * The indexes restock keeps by default (users' and products' own), which the seeded databases
 * and the baseline share, so that a write updates the same indexes in both servers.
 */
import { defaultConfig } from '../src/config/index.js';
import { declareCollections } from '../src/core/collections.js';

export const INDEXES = declareCollections(defaultConfig()).indexes;
