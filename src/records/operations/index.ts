/** A record's writes readied once for every path: a request alone and each operation of a batch. */
export { type IdempotencyOf, type IdempotentResult, idempotently } from './idempotent-write.js';
export { mergeConditions, readyBulk, readyCreate, removeConditions, sentFields } from './prepare.js';
export { type RulePolicy, type WriteKit, type WriteLimits, writeKit } from './write-kit.js';
