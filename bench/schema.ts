/**
 * The indexes restock keeps by default (the INDEXES setting), which the seeded databases
 * and the baseline share, so that a write updates the same indexes in both servers.
 */
import { defaultConfig } from '../src/config/index.js';

export const INDEXES = defaultConfig().indexes;
