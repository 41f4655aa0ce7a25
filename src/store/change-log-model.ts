/**
 * What the change log keeps and answers (sql/change-log-sql.ts writes it): every committed
 * change of every collection, numbered per collection in commit order.
 */
import type { StoredRecord } from './record-model.js';

/** One change to a record, as the change log keeps it. */
export interface Change {
  /** The collection's change number: 1, 2, 3…, in the order the changes committed. */
  seq: number;
  kind: 'created' | 'updated' | 'deleted';
  /** The record after the change (as it was, for a delete). */
  record: StoredRecord;
  /** For an update, the record's fields before it (JSON object text). */
  previous?: string;
  /** When it was logged, as ISO 8601 text: in its write's transaction, so about when it committed. */
  loggedAt?: string;
}

/** The changes of a collection the log holds: `first` to `last` (`first` is `last + 1` when it holds none). */
export interface ChangeBounds {
  first: number;
  last: number;
}

/**
 * Every committed change of every collection, numbered per collection, kept for a while
 * (sql/change-log-sql.ts).
 */
export interface ChangeLog {
  /** The changes of `collection` after number `after`, in order (at most `limit`, default 1,000). */
  read(collection: string, after: number, limit?: number): Promise<Change[]>;
  /**
   * The same read for the one reader per collection that hands what just committed to every
   * subscriber: on a connection of its own where the store has a pool, so that delivering
   * changes never waits behind requests.
   */
  readNew(collection: string, after: number): Promise<Change[]>;
  bounds(collection: string): Promise<ChangeBounds>;
  /** Forgets changes logged before `before`; resolves with how many. */
  trim(before: Date): Promise<number>;
  /**
   * Calls `wake` whenever changes may have committed (with the collection when the store
   * knows it), from any process; returns how to stop.
   */
  watch(wake: (collection?: string) => void): () => void;
}
