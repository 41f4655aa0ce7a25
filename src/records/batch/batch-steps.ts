/**
 * A batch's operations as the store's steps: each readied by the functions the same request
 * alone is readied by (../operations/: its collection's rules, schema, size cap, If-Match,
 * password), once the earlier results it names are known. Passwords were hashed before the
 * batch runs (./readied-operations.ts), since the store runs its steps without waiting.
 */
import { jsonBytes } from '../../core/json-bytes.js';
import { type BatchResult, type BatchStep, BatchStepError, type StoredRecord } from '../../store/store.js';
import { accountWrite, mergeConditions, type RecordKit, readyCreate, removeConditions } from '../operations/index.js';
import { Refusal } from '../refusal.js';
import type { Caller } from '../rules/record-access.js';
import type { BatchOperation } from './batch-operations.js';
import {
  badReference,
  filledIn,
  mentionsResults,
  parsedResults,
  type ResultReference,
  referencesIn,
  valueAt,
} from './batch-references.js';
import type { ReadiedOperation } from './readied-operations.js';
import type { ResolvedSize } from './resolved-size.js';

/** The store's steps for a batch, and which of them were runs of creates sent as one. */
export interface BatchSteps {
  /** The store's `next`: the step at `done.length`, readied now that the results before it are known. */
  next(done: readonly BatchResult[]): BatchStep | undefined;
  /** Whether the step at `index` was several creates as one (a failure there names the first of them). */
  grouped(index: number): boolean;
}

/**
 * With `group`, creates in a row on one collection, none naming another of the run's
 * results, are one step: one INSERT rather than one each, as a bulk create writes them.
 */
export function batchSteps(
  operations: readonly ReadiedOperation[],
  caller: Caller,
  { group, maxAnswerBytes, size }: { group: boolean; maxAnswerBytes: number; size: ResolvedSize },
): BatchSteps {
  const parsed = parsedResults();
  const answer = answerBudget(maxAnswerBytes);
  const groupedAt = new Set<number>();
  // The last operation each one's body names, and whether it names any (or escapes a `$`).
  const named = operations.map(({ operation }) =>
    Math.max(-1, ...referencesIn(operation.body).map((found) => found.reference.index)),
  );
  const mentions = operations.map(({ fields }) => mentionsResults(fields));

  const stepAt = (index: number, done: readonly BatchResult[]): BatchStep => {
    const { operation, kit, secret, fields: sent, asked, mail } = operations[index] as ReadiedOperation;
    const collection = kit.collection.plural;
    const resolve = (reference: ResultReference, pointer: string) => {
      const value = valueAt(parsed(done[reference.index] as StoredRecord), reference);
      if (value === undefined)
        throw badReference(reference, pointer, `names a field operation ${reference.index}'s record does not have`);
      return value;
    };
    const fields = mentions[index]
      ? (filledIn(sent, (reference, pointer) => resolve(reference, `/${index}/body${pointer}`)) as Record<
          string,
          unknown
        >)
      : sent;
    const id = idOf(operation, kit, (reference) => resolve(reference, `/${index}/path`));
    switch (operation.action) {
      case 'create': {
        const sized = mentions[index] ? { sized: (bytes: number) => size.settle(index, bytes) } : {};
        const data = readyCreate(kit, caller, fields ?? {}, sized);
        const account = accountWrite(secret, kit.signUpMail());
        return { collection, kind: 'create', data, ...(account && { account }) };
      }
      case 'merge': {
        const patch = fields ?? {};
        if (mentions[index]) size.settle(index, jsonBytes(patch));
        // An account's change holds back what waits for confirmation; its rules read what was sent.
        const ruled = asked === undefined ? patch : { ...asked, ...patch };
        const conditions = mergeConditions(kit, caller, id, { ifMatch: operation.ifMatch, patch: ruled, secret, mail });
        return { collection, kind: 'merge', id, patch, conditions };
      }
      case 'remove':
        return { collection, kind: 'remove', id, conditions: removeConditions(kit, caller, id, operation.ifMatch) };
      case 'read':
        return { collection, kind: 'read', id };
    }
  };

  /** Where the run of creates that starts at `index` ends (exclusive). */
  const runEnd = (index: number) => {
    const first = operations[index]?.operation;
    let end = index + 1;
    while (first?.action === 'create') {
      const next = operations[end]?.operation;
      if (next?.action !== 'create' || next.collection !== first.collection || (named[end] ?? -1) >= index) break;
      end++;
    }
    return end;
  };

  return {
    grouped: (index) => groupedAt.has(index),
    next(done) {
      const index = done.length;
      answer.count(done);
      if (index > 0) checkResult(operations[index - 1] as ReadiedOperation, done[index - 1], index - 1, caller);
      if (index >= operations.length) return undefined;
      const end = group ? runEnd(index) : index + 1;
      if (end - index === 1) return stepAt(index, done);
      groupedAt.add(index);
      const data: string[] = [];
      for (let at = index; at < end; at++) {
        try {
          data.push((stepAt(at, done) as { data: string }).data);
        } catch (error) {
          throw new BatchStepError(at, error);
        }
      }
      const accounts = operations.slice(index, end).map(({ secret, kit }) => accountWrite(secret, kit.signUpMail()));
      return { collection: operations[index]?.operation.collection.plural ?? '', kind: 'createMany', data, accounts };
    },
  };
}

/**
 * The bytes of the answer so far, counted as results come in: a batch whose answer would
 * pass `maxBytes` (MAX_PAGE_BYTES, as a page) stops at the operation that passes it, so
 * that a few small requests cannot make restock build an answer of any size (100 reads
 * of records of a megabyte each).
 */
function answerBudget(maxBytes: number) {
  let counted = 0;
  let bytes = 0;
  return {
    count(done: readonly BatchResult[]) {
      // A batch run again (after another process's lock) counts from its start.
      if (done.length < counted) [counted, bytes] = [0, 0];
      for (; counted < done.length; counted++) {
        // The record's fields, and room for its status, headers and system fields.
        bytes += (done[counted]?.data.length ?? 0) + 200;
        if (bytes > maxBytes) {
          const detail = `The batch's answer would pass the ${maxBytes} bytes an answer may take; send fewer operations.`;
          throw new BatchStepError(counted, new Refusal('invalid-batch', detail));
        }
      }
    },
  };
}

/** The id of the record an item path names, once a reference in it is filled in; 0 for a create. */
function idOf(operation: BatchOperation, kit: RecordKit, resolve: (reference: ResultReference) => unknown): number {
  if (operation.id === undefined) return 0;
  if (typeof operation.id === 'number') return operation.id;
  const value = resolve(operation.id);
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < 1) throw kit.notFound(String(value));
  return value;
}

/** Refuses what an operation gave that the same request alone would have answered 404: no record, or one the caller may not see. */
function checkResult(readiedOperation: ReadiedOperation, result: BatchResult, index: number, caller: Caller): void {
  const { operation, kit } = readiedOperation;
  if (operation.action === 'create') return;
  const seen = result && (operation.action !== 'read' || kit.access.canView(caller, result));
  if (!seen) throw new BatchStepError(index, kit.notFound(result?.id ?? idText(operation)));
}

/** The id an operation's path names, as sent. */
const idText = ({ id }: BatchOperation) => (typeof id === 'object' ? id.text : String(id));
