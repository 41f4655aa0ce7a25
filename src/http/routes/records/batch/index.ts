/**
 * `POST /batch/`: several operations, on any collections, in one transaction: all of them
 * are kept or none. Each is authorized, checked and answered as if sent alone; the first
 * that fails ends the batch with its own problem, its pointers under the operation's index.
 * What a batch does is src/records/batch/'s (run-batch.ts); here are the request's parts:
 * each operation authorized, the Idempotency-Key, the problem and the reply.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { batchDocs } from '../../../../api/openapi/batch-operation.js';
import type { Catalog } from '../../../../core/catalog.js';
import type { Collection } from '../../../../core/collection.js';
import { atOperation } from '../../../../records/batch/at-operation.js';
import { batchOperations, changedRecords } from '../../../../records/batch/batch-operations.js';
import { readiedAll } from '../../../../records/batch/readied-operations.js';
import { ResolvedSize } from '../../../../records/batch/resolved-size.js';
import { answerOf, operationPolicy, runBatch } from '../../../../records/batch/run-batch.js';
import { idempotently, type RecordKit } from '../../../../records/operations/index.js';
import { JSON_TYPE } from '../../../../records/render.js';
import { type BatchResult, BatchStepError, type IdempotentCreate, type Store } from '../../../../store/store.js';
import { registerPaths } from '../../../paths.js';
import { callerOf } from '../../../plugins/access-control/access-control.js';
import { holderOf } from '../../../plugins/rate-limit/index.js';
import { type IdempotencyOptions, idempotencyOf } from '../idempotency.js';
import { batchProblem } from './batch-problem.js';

export interface BatchRouteOptions {
  store: Store;
  catalog: Catalog;
  /** Each collection's record kit. */
  kitOf(collection: Collection): RecordKit;
  idempotency: IdempotencyOptions;
  maxOperations: number;
  /** How long a batch may run in all (the statement budget). */
  budgetMs: number;
  /** The most bytes the operations' bodies may write, references filled in (BODY_LIMIT, as one body). */
  maxBodyBytes: number;
  /** The most bytes an answer may take (MAX_PAGE_BYTES, as a list page). */
  maxAnswerBytes: number;
}

export function registerBatchRoute(app: FastifyInstance, options: BatchRouteOptions): void {
  const { store, catalog } = options;
  const kitOf = (operation: { collection: Collection }) => options.kitOf(operation.collection);

  async function handler(request: FastifyRequest, reply: FastifyReply) {
    const operations = batchOperations(request.body, catalog, options.maxOperations);
    // What the same request alone would need of the caller: its method's scope, and its collection's rules or a key.
    for (const [index, operation] of operations.entries()) {
      atOperation(index, () =>
        app.authorizeAs(request, operation.method, operationPolicy(kitOf(operation), operation)),
      );
    }
    const size = new ResolvedSize(operations, options.maxBodyBytes);
    const ready = await readiedAll(operations, kitOf, holderOf(request));
    const answer = (done: readonly BatchResult[]) => answerOf(operations, done);
    const run = (claim?: IdempotentCreate) =>
      runBatch(store, ready, callerOf(request), {
        size,
        maxAnswerBytes: options.maxAnswerBytes,
        plan: {
          budgetMs: options.budgetMs,
          changes: changedRecords(operations),
          ...(claim && { idempotency: { ...claim, answer } }),
        },
      });
    const what = () => ({ method: 'POST', path: '/batch/', body: JSON.stringify(request.body) });
    const done = await idempotently(
      idempotencyOf(request, store.idempotency, options.idempotency, what),
      async (claim) => answer(await run(claim)),
    );
    if (done.kind === 'replay') return send(reply.header('idempotent-replayed', 'true'), JSON.stringify(done.record));
    return send(reply, done.result);
  }

  registerPaths(app, [
    {
      url: '/batch/',
      policy: { batch: true },
      operations: {
        POST: {
          docs: batchDocs(catalog, options.maxOperations),
          async handler(request, reply) {
            try {
              return await handler(request, reply);
            } catch (error) {
              if (error instanceof BatchStepError) throw batchProblem(request.body, error, request.id);
              throw error;
            }
          },
        },
      },
    },
  ]);
}

function send(reply: FastifyReply, answer: string) {
  return reply.code(200).type(JSON_TYPE).send(answer);
}
