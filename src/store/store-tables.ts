/**
 * The tables the store keeps beside the collections' own, on every engine. A collection's
 * table is named after its plural, so a collection may take none of these names, nor one
 * ending in `_search` (its search index's name). The store owns the list: a table added to
 * a migration belongs here, and a test holds the list against the tables each engine makes.
 */
import { ConfigError } from '../config/index.js';
import type { Catalog } from '../core/catalog.js';

export const STORE_TABLES: readonly string[] = [
  'account_links',
  'account_secrets',
  'account_tokens',
  'change_inbox',
  'change_seqs',
  'changes',
  'declared_refs',
  'file_reaper_cursors',
  'idempotency_keys',
  'mail_outbox',
  'record_refs',
  'refresh_families',
  'refresh_tokens',
  'schema_migrations',
  'server_secrets',
  'signing_keys',
  'verified_accounts',
  'webhook_deliveries',
  'webhook_positions',
  'webhooks',
];

/** Refuses, in one line naming its file, a collection whose table would be one of the store's. */
export function refuseStoreTables(catalog: Pick<Catalog, 'collections'>): void {
  for (const { plural, source } of catalog.collections) {
    if (STORE_TABLES.includes(plural) || plural.endsWith('_search')) {
      throw new ConfigError(`SCHEMAS: ${source}: "${plural}" names a table restock keeps for itself`);
    }
  }
}
