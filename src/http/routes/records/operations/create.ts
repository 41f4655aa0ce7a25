/**
 * A create: one record from a JSON object, or many from an array (all or none), with an
 * `Idempotency-Key` replayed rather than run twice. On an account collection the password
 * is taken out of the record, checked on its own and stored only as its hash. Each is
 * readied as a batch's create is (src/records/operations/).
 */
import type { FastifyReply, FastifyRequest } from 'fastify';
import {
  createRecords,
  idempotently,
  readyBulk,
  readyCreate,
  sentFields,
} from '../../../../records/operations/index.js';
import type { StoredRecord } from '../../../../store/store.js';
import type { Operation } from '../../../paths.js';
import { callerOf } from '../../../plugins/access-control/access-control.js';
import { objectBody } from '../../../plugins/json-body.js';
import { idempotencyOf } from '../idempotency.js';
import { isBulk, sendCreated, sendRecord } from '../record-response.js';
import type { OperationContext } from './context.js';

export function createOperation(context: OperationContext): Operation {
  const { options, kit } = context;
  const { paths } = kit;
  const created = (reply: FastifyReply, record: StoredRecord | StoredRecord[]) =>
    Array.isArray(record)
      ? sendCreated(reply, record)
      : sendRecord(reply.header('location', paths.item(record.id)), 201, record);

  /** What the body asks to write: one record's text, password and its hash, or many records' texts. */
  const prepare = async (request: FastifyRequest) => {
    const caller = callerOf(request);
    if (isBulk(request)) {
      return { texts: readyBulk(kit, caller, request.body) };
    }
    const { fields, password } = sentFields(kit, objectBody(request.body));
    const data = readyCreate(kit, caller, fields);
    if (password === undefined) return { data };
    return { data, password, secret: await context.hash(request, password) };
  };

  return {
    async handler(request, reply) {
      const ready = await prepare(request);
      const { texts, data = `[${texts?.join(',')}]`, password } = ready;
      const what = () => ({
        method: request.method,
        path: paths.create,
        body: data,
        ...(password !== undefined && { password }),
      });
      const keyed = idempotencyOf(request, options.idempotencyKeys, options.idempotency, what);
      const done = await idempotently(keyed, (claim) => createRecords(kit, ready, claim));
      if (done.kind === 'replay') return created(reply.header('idempotent-replayed', 'true'), done.record);
      return created(reply, done.result);
    },
  };
}
