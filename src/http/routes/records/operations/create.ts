/**
 * A create: one record from a JSON object, or many from an array (all or none), with an
 * `Idempotency-Key` replayed rather than run twice. On an account collection the password
 * is taken out of the record, checked on its own and stored only as its hash.
 */
import type { FastifyReply, FastifyRequest } from 'fastify';
import { isObject } from '../../../../core/is-object.js';
import { bulkRecords, createAll } from '../../../../records/bulk-create.js';
import { claimKey, idempotencyKeyIn } from '../../../../records/idempotency.js';
import { type IdempotentCreate, RecordTooLargeError, type StoredRecord } from '../../../../store/store.js';
import type { Operation } from '../../../paths.js';
import { callerOf } from '../../../plugins/access-control/access-control.js';
import { clientFields } from '../../../plugins/json-body.js';
import { isBulk, sendCreated, sendRecord } from '../record-response.js';
import type { OperationContext } from './context.js';

export function createOperation(context: OperationContext): Operation {
  const { options, paths, checks, bulk, access } = context;
  const { records } = options;
  const created = (reply: FastifyReply, record: StoredRecord | StoredRecord[]) =>
    Array.isArray(record)
      ? sendCreated(reply, record)
      : sendRecord(reply.header('location', paths.item(record.id)), 201, record);

  /** What the body asks to write: one record's text, password and its hash, or many records' texts. */
  const prepare = async (request: FastifyRequest) => {
    const caller = callerOf(request);
    if (isBulk(request)) {
      const items = request.body.map((item, i) => {
        const fields = context.passwordless(item, i);
        return isObject(fields) ? access.create(caller, fields) : fields;
      });
      return { texts: bulkRecords(items, bulk) };
    }
    const { fields, password } = context.password(clientFields(request.body));
    const ready = access.create(caller, fields);
    checks.sent(ready);
    const data = JSON.stringify(ready);
    const bytes = Buffer.byteLength(data);
    if (bytes > options.maxRecordBytes) throw new RecordTooLargeError(bytes, options.maxRecordBytes);
    if (password === undefined) return { data };
    return { data, password, secret: await context.hash(request, password) };
  };

  return {
    async handler(request, reply) {
      const { texts, data = `[${texts?.join(',')}]`, password, secret } = await prepare(request);
      const write = (claim?: IdempotentCreate) =>
        texts ? createAll(texts, bulk, () => records.createMany(texts, claim)) : records.create(data, claim, secret);
      const key = idempotencyKeyIn(request.headers['idempotency-key']);
      if (key === undefined) return created(reply, await write());

      const what = {
        method: request.method,
        path: paths.create,
        body: data,
        ...(password !== undefined && { password }),
      };
      const outcome = await claimKey(
        options.idempotencyKeys,
        { scope: options.idempotency.scopeOf(request), key },
        what,
        options.idempotency.staleAfterMs,
      );
      if (outcome.kind === 'replay') return created(reply.header('idempotent-replayed', 'true'), outcome.record);
      try {
        return created(reply, await write(outcome.claim));
      } catch (error) {
        // Nothing was written: let a retry run again rather than wait for the claim to go stale.
        await options.idempotencyKeys
          .release(outcome.claim.scope, outcome.claim.key, outcome.claim.token)
          .catch((releaseError: unknown) => request.log.warn({ err: releaseError }, 'could not release a key'));
        throw error;
      }
    },
  };
}
