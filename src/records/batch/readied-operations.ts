/**
 * A batch's operations readied before it runs: each account's password taken out of its
 * body and hashed, and an account's change by a caller without a key readied as the same
 * request alone is (its current password checked, a new email address held back for its
 * confirmation): the store runs its steps without waiting, so neither can wait for them.
 */
import type { NewMail } from '../../store/mail-model.js';
import { BatchStepError } from '../../store/store.js';
import { PASSWORD_FIELD } from '../accounts/index.js';
import type { Holder } from '../in-flight-gate.js';
import { type RecordKit, readyAccountChange, sentFields } from '../operations/index.js';
import { Refusal } from '../refusal.js';
import type { Caller } from '../rules/record-access.js';
import { atOperation } from './at-operation.js';
import type { BatchOperation } from './batch-operations.js';
import { filledIn, mentionsResults, referenceIn } from './batch-references.js';

/** An operation with what it needs before the batch runs: its collection's kit, its password's hash. */
export interface ReadiedOperation {
  readonly operation: BatchOperation;
  readonly kit: RecordKit;
  /** The body without system fields and without the password: what is written. */
  readonly fields?: Record<string, unknown>;
  /** The body as the rules read it, where an account's change holds back part of `fields` (a new email address). */
  readonly asked?: Record<string, unknown>;
  readonly secret?: string;
  /** Mail an account's change queues with it. */
  readonly mail?: readonly NewMail[];
}

/**
 * Hashes the operations' passwords, taking each out of its fields, within `holder`'s share
 * of hashing. One a batch: a hash costs a third of a second of CPU at the default cost,
 * and a bulk create takes none.
 */
export async function readiedAll(
  operations: readonly BatchOperation[],
  kitOf: (operation: BatchOperation) => RecordKit,
  { holder, caller }: { holder: Holder; caller: Caller },
): Promise<ReadiedOperation[]> {
  const ready: ReadiedOperation[] = [];
  let hashed = false;
  for (const [index, operation] of operations.entries()) {
    const kit = kitOf(operation);
    const body = operation.body && (kit.collection.account ? passwordAsWritten(operation.body, index) : operation.body);
    const sent = atOperation(index, () => body && sentFields(kit, body));
    const changed = sent && (await accountChangeAt(index, operation, kit, caller, sent, holder));
    const taken = sent && changed ? { ...sent, ...changed } : sent;
    if (!taken || taken.password === undefined) {
      ready.push({ operation, kit, ...(taken && { fields: taken.fields, ...changed }) });
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
    ready.push({ operation, kit, fields: taken.fields, ...changed, secret });
  }
  return ready;
}

/**
 * An account's change readied as the same request alone is (../operations/prepare.ts), for
 * a caller without a key; it must name its account by id, and a new address by value, as
 * both are looked at before the batch runs.
 */
async function accountChangeAt(
  index: number,
  operation: BatchOperation,
  kit: RecordKit,
  caller: Caller,
  sent: ReturnType<RecordKit['password']>,
  holder: Holder,
): Promise<Pick<ReadiedOperation, 'fields' | 'asked' | 'mail'> | undefined> {
  if (operation.action !== 'merge' || !kit.accountChanges || 'kind' in caller) return undefined;
  const email = kit.collection.account?.email;
  const named = email !== undefined && mentionsResults(sent.fields[email]);
  if (typeof operation.id !== 'number' || named) {
    if (sent.password === undefined && (email === undefined || !Object.hasOwn(sent.fields, email))) return undefined;
    const detail =
      "An account's password or email address is changed in a batch only on an account named by its id, " +
      'to a value sent as it is, not an earlier result.';
    throw new BatchStepError(index, new Refusal('invalid-batch', detail));
  }
  const id = operation.id;
  const change = await atOperation(index, () => readyAccountChange(kit, caller, id, sent, holder));
  if (change.fields === sent.fields) return undefined;
  return { fields: change.fields, asked: sent.fields, ...(change.mail && { mail: change.mail }) };
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
