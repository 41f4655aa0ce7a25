/**
 * `POST /batch/`: several operations, on any collections, in one transaction: all of them
 * are kept or none. Each is authorized, checked and answered as if sent alone; the first
 * that fails ends the batch with its own problem, its pointers under the operation's index.
 * What a batch does is src/records/batch/'s (run-batch.ts); here are the request's parts:
 * its Idempotency-Key, each operation authorized, the problem and the reply.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { batchDocs } from '../../../../api/openapi/batch-operation.js';
import type { Catalog } from '../../../../core/catalog.js';
import type { Collection } from '../../../../core/collection.js';
import { atOperation } from '../../../../records/batch/at-operation.js';
import { batchOperations } from '../../../../records/batch/batch-operations.js';
import { runBatch } from '../../../../records/batch/run-batch.js';
import type { RecordKit } from '../../../../records/operations/index.js';
import { JSON_TYPE } from '../../../../records/render.js';
import { BatchStepError, type Store } from '../../../../store/store.js';
import { registerPaths } from '../../../paths.js';
import { callerOf } from '../../../plugins/access-control/access-control.js';
import { holderOf } from '../../../plugins/rate-limit/index.js';
import { type IdempotencyOptions, requestKeyOf } from '../idempotency.js';
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
    const what = () => ({ method: 'POST', path: '/batch/', body: JSON.stringify(request.body) });
    const idempotency = { ...requestKeyOf(request, store.idempotency, options.idempotency), what };
    const operations = batchOperations(request.body, catalog, options.maxOperations);
    // What the same request alone would need of the caller: its method's scope, and its collection's rules or a key.
    for (const [index, operation] of operations.entries()) {
      const policy = kitOf(operation).access.policy(operation.rule);
      atOperation(index, () => app.authorizeAs(request, operation.method, policy));
    }
    const done = await runBatch(store, operations, {
      kitOf,
      caller: callerOf(request),
      holder: holderOf(request),
      idempotency,
      budgetMs: options.budgetMs,
      maxBodyBytes: options.maxBodyBytes,
      maxAnswerBytes: options.maxAnswerBytes,
    });
    if (done.kind === 'replay') reply.header('idempotent-replayed', 'true');
    else wakeMail(operations.filter((operation) => operation.action === 'create').map(kitOf));
    const answer = done.kind === 'replay' ? JSON.stringify(done.record) : done.result;
    return reply.code(200).type(JSON_TYPE).send(answer);
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

/** Wakes the outbox's sender once for each collection a committed batch signed accounts up in that are sent mail. */
function wakeMail(kits: readonly RecordKit[]) {
  for (const kit of new Set(kits)) if (kit.collection.account?.verify) kit.mailQueued();
}
