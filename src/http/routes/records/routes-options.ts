/** What the routes of one collection are served from: its records, and what all collections share. */
import type { PasswordHasher } from '../../../records/accounts/index.js';
import type { ExpandSource } from '../../../records/expand.js';
import type { InFlightGate } from '../../../records/in-flight-gate.js';
import type { WriteKit } from '../../../records/operations/index.js';
import type { Caller } from '../../../records/rules/record-access.js';
import type { IdempotencyKeys, Records } from '../../../store/store.js';
import type { ChangeFeedOptions } from './change-feed.js';
import type { IdempotencyOptions } from './idempotency.js';

/** What the routes of a collection are served from. */
export interface CollectionRoutesOptions {
  /** The collection's records in the store. */
  records: Records;
  /** What its writes are readied with (its rules, checks and limits), made once from the catalog. */
  kit: WriteKit;
  idempotencyKeys: IdempotencyKeys;
  idempotency: IdempotencyOptions;
  /** The caps on costly list queries running at once. */
  costlyQueries: InFlightGate;
  /** Longest field name a query may name. */
  maxFieldNameLength: number;
  /** Largest list page in bytes (MAX_PAGE_BYTES). */
  maxPageBytes: number;
  /** The most records one create may send as an array (MAX_BULK_RECORDS). */
  maxBulkRecords: number;
  /** Where `expand=` finds the records references name, embedding only those `caller` may view. */
  viewable(caller: Caller): ExpandSource;
  /** Hashes account passwords; absent when no collection holds accounts. */
  hasher?: PasswordHasher;
  /** What the change feeds share: the log, its readers, the open feeds. */
  feeds: Omit<ChangeFeedOptions, 'collection' | 'maxFieldNameLength' | 'fields'>;
}
