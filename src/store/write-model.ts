/**
 * What a write may be held to: its `If-Match`, its checks inside the write's transaction,
 * and the `Idempotency-Key` claim it completes. Shared by single writes (store.ts) and
 * batches (batch-model.ts).
 */
import type { SpentToken } from './account-model.js';
import type { NewMail } from './mail-model.js';
import type { StoredRecord } from './record-model.js';

/** What an account's write carries beside its record, written in the same transaction. */
export interface AccountWrite {
  /** The account's new password hash. */
  readonly secret?: string;
  /** Whether its email address is now proven (true) or no longer (false); unchanged when absent. */
  readonly verified?: boolean;
  /** Mail the write causes, put in the outbox; one without `accountId` names the record written. */
  readonly mail?: readonly NewMail[];
}

/**
 * A write's precondition (`If-Match`): it applies only while the record's version is one
 * of these; `'*'` asks only that the record exists.
 */
export type VersionCondition = readonly number[] | '*';

/** What a write must hold to go ahead; checked inside the write's own transaction. */
export interface WriteConditions {
  /** `If-Match`: see {@link VersionCondition}; a mismatch throws {@link PreconditionFailedError}. */
  readonly ifVersion?: VersionCondition;
  /**
   * Called with the record's fields as they would be stored; a throw rolls the write back
   * and is passed on (schema validation of a merge's result).
   */
  readonly check?: (data: string) => void;
  /** The most bytes the record's fields may take as compact JSON; more throws {@link RecordTooLargeError}. */
  readonly maxBytes?: number;
  /**
   * Whether the caller may see the record as it is, asked under the write's lock before
   * anything else: one it may not see is, to this write, not there. It then gets exactly a
   * missing id's answer (none, or {@link PreconditionFailedError} under `ifVersion`), so no
   * write, condition or not, tells which ids exist.
   */
  readonly visible?: (current: StoredRecord) => boolean;
  /**
   * Called with a record the caller may see, under the write's lock, before it changes and
   * before `ifVersion` is compared: a throw (a record rule refusing the caller) leaves it
   * unchanged and is passed on.
   */
  readonly allow?: (current: StoredRecord) => void;
  /**
   * Called under the write's lock with the record as it is and the patch, before the merge:
   * the patch to apply in its place (file fields' values resolved against the files the
   * record holds, src/records/files/). A throw leaves the record unchanged and is passed on.
   */
  readonly resolve?: (current: StoredRecord, patch: object) => object;
  /** An account's new password hash, written in the same transaction. */
  readonly secret?: string;
  /** Whether the account's email address is now proven; unchanged when absent. */
  readonly verified?: boolean;
  /** Mail the write causes, put in the outbox in its transaction. */
  readonly mail?: readonly NewMail[];
  /**
   * A flow's token the write spends: it goes ahead only if the token is live and names this
   * record, and uses it up, else throws {@link InvalidFlowTokenError} and changes nothing.
   */
  readonly spend?: SpentToken;
}

/** What a delete may be held to: a merge's conditions that do not concern the fields written. */
export type RemoveConditions = Pick<WriteConditions, 'ifVersion' | 'visible' | 'allow'>;

/** Ties a create to an `Idempotency-Key` claim, so that both are written or neither. */
export interface IdempotentCreate {
  readonly scope: string;
  readonly key: string;
  /** The token of the claim this request holds; another holder means it was taken over. */
  readonly token: string;
}
