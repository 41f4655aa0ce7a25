/**
 * A batch's operations readied before it runs: each account's password taken out of its
 * body and hashed (the store runs its steps without waiting, so a hash cannot wait for them).
 */
import { BatchStepError } from '../../store/store.js';
import { PASSWORD_FIELD } from '../accounts/index.js';
import type { Holder } from '../in-flight-gate.js';
import { type RecordKit, sentFields } from '../operations/index.js';
import { Refusal } from '../refusal.js';
import { atOperation } from './at-operation.js';
import type { BatchOperation } from './batch-operations.js';
import { filledIn, mentionsResults, referenceIn } from './batch-references.js';

/** An operation with what it needs before the batch runs: its collection's kit, its password's hash. */
export interface ReadiedOperation {
  readonly operation: BatchOperation;
  readonly kit: RecordKit;
  /** The body without system fields and without the password. */
  readonly fields?: Record<string, unknown>;
  readonly secret?: string;
}

/**
 * Hashes the operations' passwords, taking each out of its fields, within `holder`'s share
 * of hashing. One a batch: a hash costs a third of a second of CPU at the default cost,
 * and a bulk create takes none.
 */
export async function readiedAll(
  operations: readonly BatchOperation[],
  kitOf: (operation: BatchOperation) => RecordKit,
  holder: Holder,
): Promise<ReadiedOperation[]> {
  const ready: ReadiedOperation[] = [];
  let hashed = false;
  for (const [index, operation] of operations.entries()) {
    const kit = kitOf(operation);
    const body = operation.body && (kit.collection.account ? passwordAsWritten(operation.body, index) : operation.body);
    const taken = atOperation(index, () => body && sentFields(kit, body));
    if (!taken || taken.password === undefined) {
      ready.push({ operation, kit, ...(taken && { fields: taken.fields }) });
      continue;
    }
    if (hashed) {
      const detail = 'A batch may set one password: create or change other accounts in batches of their own.';
      throw new BatchStepError(
        index,
        new Refusal('invalid-batch', detail, {
          errors: [{ pointer: `/${index}/body/${PASSWORD_FIELD}`, message: 'is a second password' }],
        }),
      );
    }
    hashed = true;
    const secret = await atOperation(index, () => kit.hash(taken.password as string, holder));
    ready.push({ operation, kit, fields: taken.fields, secret });
  }
  return ready;
}

/**
 * An account's body with its password as it will be hashed: the password is hashed before
 * the batch runs, so it cannot name an earlier result, and `$$` in it means one `$`, as in
 * any other field.
 */
function passwordAsWritten(body: Record<string, unknown>, index: number): Record<string, unknown> {
  const password = body[PASSWORD_FIELD];
  if (typeof password !== 'string' || !mentionsResults(password)) return body;
  if (referenceIn(password)) {
    const detail = "A password is hashed before the batch runs, so it cannot name another operation's result.";
    throw new BatchStepError(
      index,
      new Refusal('invalid-batch', detail, {
        errors: [{ pointer: `/${index}/body/${PASSWORD_FIELD}`, message: 'names an earlier result' }],
      }),
    );
  }
  return { ...body, [PASSWORD_FIELD]: filledIn(password, () => undefined) };
}
