/**
 * The collections the contract suites run on: the two restock serves by default, and one
 * declared only by a schema file (test/fixtures/declared/), which no code names. Its singular
 * is not its plural less an s, so the declaration's `x-singular` is what routes it.
 */
import { fileURLToPath } from 'node:url';
import type { Config } from '../../src/config/index.js';
import { DEFAULT_COLLECTIONS } from '../../src/core/default-collections.js';

export const DECLARED_SCHEMAS = fileURLToPath(new URL('../fixtures/declared', import.meta.url));

export interface ContractCollection {
  plural: string;
  singular: string;
  /** The settings that serve it. */
  settings: Partial<Config>;
}

export const CONTRACT_COLLECTIONS: readonly ContractCollection[] = [
  ...DEFAULT_COLLECTIONS.map(({ plural, singular }) => ({ plural, singular, settings: {} })),
  { plural: 'boxes', singular: 'box', settings: { schemas: DECLARED_SCHEMAS } },
];
