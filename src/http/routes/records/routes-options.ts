/** What the routes of one collection are served from: its record kit, and what all collections share. */
import type { RecordLimits as BodyLimits } from '../../../core/record-limits.js';
import type { RecordKit } from '../../../records/operations/index.js';
import type { IdempotencyKeys } from '../../../store/store.js';
import type { ChangeFeedOptions } from './change-feed.js';
import type { IdempotencyOptions } from './idempotency.js';

/** What the routes of a collection are served from. */
export interface CollectionRoutesOptions {
  /** What its reads and writes are readied with (its records, rules, checks and limits), made once from the catalog. */
  kit: RecordKit;
  idempotencyKeys: IdempotencyKeys;
  idempotency: IdempotencyOptions;
  /** What the change feeds share: the log, its readers, the open feeds. */
  feeds: Omit<ChangeFeedOptions, 'collection' | 'maxFieldNameLength' | 'fields'>;
  /** What a body may hold (depth, fields, name lengths): a multipart body's record part is held to them too. */
  bodyLimits: BodyLimits;
}
