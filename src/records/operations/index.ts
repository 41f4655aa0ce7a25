/** A record's life readied once for every path: a request alone and each operation of a batch. */
export { type IdempotencyOf, type IdempotentResult, idempotently, type RequestKey } from './idempotent-write.js';
export { accountWrite, mergeConditions, readyBulk, readyCreate, removeConditions, sentFields } from './prepare.js';
export { type ReadPage, type ReadRecord, readList, readRecord } from './reads.js';
export {
  type MailQueue,
  mailUnavailable,
  type RecordKit,
  type RecordKitOptions,
  type RecordLimits,
  recordKits,
  recordLimitsOf,
} from './record-kit.js';
export { type CreateInput, changeRecord, createRecord, removeRecord, type WriteCaller } from './record-writes.js';
