/**
 * A batch's operations readied before it runs: each account's password taken out of its
 * body and hashed (the store runs its steps without waiting, so a hash cannot wait for them).
 */
import type { FastifyRequest } from 'fastify';
import { PASSWORD_FIELD } from '../../../../records/accounts/index.js';
import type { BatchOperation } from '../../../../records/batch/batch-operations.js';
import { filledIn, mentionsResults, referenceIn } from '../../../../records/batch/batch-references.js';
import { sentFields } from '../../../../records/operations/index.js';
import { Refusal } from '../../../../records/refusal.js';
import { BatchStepError } from '../../../../store/store.js';
import type { OperationContext } from '../operations/context.js';
import { atOperation } from './batch-problem.js';

/** An operation with what it needs before the batch runs: its collection's context, its password's hash. */
export interface ReadiedOperation {
  readonly operation: BatchOperation;
  readonly context: OperationContext;
  /** The body without system fields and without the password. */
  readonly fields?: Record<string, unknown>;
  readonly secret?: string;
}

/**
 * Hashes the operations' passwords, taking each out of its fields. One a batch: a hash
 * costs a third of a second of CPU at the default cost, and a bulk create takes none.
 */
export async function readiedAll(
  request: FastifyRequest,
  operations: readonly BatchOperation[],
  contextOf: (operation: BatchOperation) => OperationContext,
): Promise<ReadiedOperation[]> {
  const ready: ReadiedOperation[] = [];
  let hashed = false;
  for (const [index, operation] of operations.entries()) {
    const context = contextOf(operation);
    const body =
      operation.body && (context.collection.account ? passwordAsWritten(operation.body, index) : operation.body);
    const taken = atOperation(index, () => body && sentFields(context.kit, body));
    if (!taken || taken.password === undefined) {
      ready.push({ operation, context, ...(taken && { fields: taken.fields }) });
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
    const secret = await atOperation(index, () => context.hash(request, taken.password as string));
    ready.push({ operation, context, fields: taken.fields, secret });
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
