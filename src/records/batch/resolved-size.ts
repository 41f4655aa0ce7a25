/**
 * What a batch may carry once its references are filled in. `"$0.blob"` stands for a value of
 * an earlier result, so a body of a few bytes could otherwise make the store write one copy of
 * a large value per operation: a batch of 1 MB could write a hundred. The bodies as they will
 * be written count together against the limit of one request's body (BODY_LIMIT).
 *
 * They are counted before anything runs, from the bodies of the creates the references name
 * (a create's record holds what its body sent), so such a batch is refused before a password
 * is hashed or a row written. A reference to a record the batch reads or changes is known
 * only once that operation has run: the operation naming it is counted again, exactly, when
 * it is readied ({@link ResolvedSize.settle}), before it is written.
 */

import { jsonBytes } from '../../core/json-bytes.js';
import { isSystemField } from '../../core/system-fields.js';
import { BatchStepError } from '../../store/store.js';
import { Refusal } from '../refusal.js';
import type { BatchOperation } from './batch-operations.js';
import { type ResultReference, referencesIn, valueAt } from './batch-references.js';

/** The most a system field takes as JSON: an id of 16 digits, or a quoted timestamp of 24 characters. */
const SYSTEM_FIELD_BYTES = 26;

export class ResolvedSize {
  readonly #maxBytes: number;
  /** Each operation's body as it will be written, in bytes, as far as is known. */
  readonly #bytes: number[];
  #total = 0;

  constructor(operations: readonly BatchOperation[], maxBytes: number) {
    this.#maxBytes = maxBytes;
    this.#bytes = operations.map(() => 0);
    const known = knownSizes(operations);
    for (const [index, operation] of operations.entries()) {
      try {
        if (operation.body) this.settle(index, known(operation.body));
      } catch (error) {
        throw new BatchStepError(index, error);
      }
    }
  }

  /**
   * Counts operation `index`'s body as `bytes`, in place of what was counted for it; past the
   * limit, refuses it (the pointer is the operation's body's own, as for its other refusals).
   */
  settle(index: number, bytes: number): void {
    this.#total += bytes - (this.#bytes[index] ?? 0);
    this.#bytes[index] = bytes;
    if (this.#total <= this.#maxBytes) return;
    const detail =
      `With its references to earlier results filled in, the batch would write more than the ${this.#maxBytes} ` +
      'bytes one request may carry; send the values themselves, or fewer operations.';
    throw new Refusal('batch-too-large', detail, {
      errors: [{ pointer: '', message: `passes the ${this.#maxBytes} bytes a batch may write` }],
    });
  }
}

/**
 * The size of a body with each reference counted as the value it names, where that is known
 * before the batch runs (a system field, or a field a create sent); 0 for the others. Each
 * value named is measured once, however many references name it.
 */
function knownSizes(operations: readonly BatchOperation[]): (value: unknown) => number {
  const measured = new Map<string, number>();
  const referenceBytes = (reference: ResultReference): number => {
    const field = reference.field[0] as string;
    if (isSystemField(field)) return SYSTEM_FIELD_BYTES;
    const target = operations[reference.index];
    if (target?.action !== 'create' || !target.body) return 0;
    const key = `${reference.index}.${reference.field.join('.')}`;
    let bytes = measured.get(key);
    if (bytes === undefined) {
      const value = valueAt(target.body, reference);
      bytes = value === undefined ? 0 : valueBytes(value);
      measured.set(key, bytes);
    }
    return bytes;
  };
  const valueBytes = (value: unknown): number => {
    let bytes = jsonBytes(value);
    for (const { reference } of referencesIn(value)) bytes += referenceBytes(reference) - jsonBytes(reference.text);
    return bytes;
  };
  return valueBytes;
}
