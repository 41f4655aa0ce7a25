/**
 * The collections restock serves by default (users and products, with their indexes), which
 * the seeded databases and the baseline share, so that a write updates the same indexes in
 * both servers.
 */
import { defaultConfig } from '../src/config/index.js';
import { loadCatalog } from '../src/core/load-catalog.js';

export const CATALOG = loadCatalog(defaultConfig());
