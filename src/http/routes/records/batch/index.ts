/**
 * `POST /batch/`: several operations, on any collections, in one transaction: all of them
 * are kept or none. Each is authorized, checked and answered as if sent alone; the first
 * that fails ends the batch with its own problem, its pointers under the operation's index.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { batchDocs } from '../../../../api/openapi/batch-operation.js';
import type { Catalog } from '../../../../core/catalog.js';
import { type Collection, collectionPaths } from '../../../../core/collection.js';
import type { RuleOperation } from '../../../../core/rules/rule-tree.js';
import {
  type BatchAction,
  type BatchOperation,
  batchOperations,
  changedRecords,
} from '../../../../records/batch/batch-operations.js';
import { ResolvedSize } from '../../../../records/batch/resolved-size.js';
import { etagOf } from '../../../../records/conditional.js';
import { idempotently } from '../../../../records/operations/index.js';
import { JSON_TYPE, renderRecord } from '../../../../records/render.js';
import type { Caller } from '../../../../records/rules/record-access.js';
import {
  type BatchPlan,
  type BatchResult,
  BatchStepError,
  type IdempotentCreate,
  type Store,
  type StoredRecord,
} from '../../../../store/store.js';
import { registerPaths } from '../../../paths.js';
import { callerOf } from '../../../plugins/access-control/access-control.js';
import type { OperationContext } from '../operations/context.js';
import type { CollectionRoutesOptions } from '../routes-options.js';
import { atOperation, batchProblem } from './batch-problem.js';
import { batchSteps } from './batch-steps.js';
import { type ReadiedOperation, readiedAll } from './readied-operations.js';

export interface BatchRouteOptions {
  store: Store;
  catalog: Catalog;
  /** Each collection's operation context. */
  contextOf(collection: Collection): OperationContext;
  idempotency: CollectionRoutesOptions['idempotency'];
  maxOperations: number;
  /** How long a batch may run in all (the statement budget). */
  budgetMs: number;
  /** The most bytes the operations' bodies may write, references filled in (BODY_LIMIT, as one body). */
  maxBodyBytes: number;
  /** The most bytes an answer may take (MAX_PAGE_BYTES, as a list page). */
  maxAnswerBytes: number;
}

const RULE_OF: Record<BatchAction, RuleOperation> = {
  create: 'create',
  merge: 'update',
  remove: 'delete',
  read: 'view',
};

export function registerBatchRoute(app: FastifyInstance, options: BatchRouteOptions): void {
  const { store, catalog, idempotency } = options;
  const contextOf = (operation: BatchOperation) => options.contextOf(operation.collection);

  /** What the same request alone would need of the caller: its method's scope, and its collection's rules or a key. */
  const authorize = (request: FastifyRequest, operation: BatchOperation) =>
    app.authorizeAs(request, operation.method, contextOf(operation).kit.policy(RULE_OF[operation.action]));

  async function handler(request: FastifyRequest, reply: FastifyReply) {
    const operations = batchOperations(request.body, catalog, options.maxOperations);
    for (const [index, operation] of operations.entries()) atOperation(index, () => authorize(request, operation));
    const size = new ResolvedSize(operations, options.maxBodyBytes);
    const ready = await readiedAll(request, operations, contextOf);
    const answer = (done: readonly BatchResult[]) => answerOf(operations, done);
    const run = (claim?: IdempotentCreate) =>
      runBatch(ready, callerOf(request), size, {
        budgetMs: options.budgetMs,
        changes: changedRecords(operations),
        ...(claim && { idempotency: { ...claim, answer } }),
      });
    const done = await idempotently(
      {
        keys: store.idempotency,
        header: request.headers['idempotency-key'],
        scope: () => idempotency.scopeOf(request),
        what: () => ({ method: 'POST', path: '/batch/', body: JSON.stringify(request.body) }),
        staleAfterMs: idempotency.staleAfterMs,
        releaseFailed: (error) => request.log.warn({ err: error }, 'could not release a key'),
      },
      async (claim) => answer(await run(claim)),
    );
    if (done.kind === 'replay') return send(reply.header('idempotent-replayed', 'true'), JSON.stringify(done.record));
    return send(reply, done.result);
  }

  /**
   * Runs the batch with runs of creates grouped; when the store refuses one of those runs,
   * again one operation at a time, so that the refusal names the operation it is about.
   */
  async function runBatch(
    ready: readonly ReadiedOperation[],
    caller: Caller,
    size: ResolvedSize,
    plan: Omit<BatchPlan, 'next'>,
  ) {
    const limits = { maxAnswerBytes: options.maxAnswerBytes, size };
    const steps = batchSteps(ready, caller, { group: true, ...limits });
    try {
      return await store.batch({ ...plan, next: steps.next });
    } catch (error) {
      if (!(error instanceof BatchStepError) || !steps.grouped(error.index)) throw error;
      const oneByOne = batchSteps(ready, caller, { group: false, ...limits });
      return store.batch({ ...plan, next: oneByOne.next });
    }
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

/** Each operation's status, the headers that matter and its record, in order, as JSON text. */
function answerOf(operations: readonly BatchOperation[], done: readonly BatchResult[]): string {
  const entries = done.map((record, index) => {
    // Every step gave a record: one that gave none stopped the batch (./batch-steps.ts).
    const { action, collection } = operations[index] as BatchOperation;
    const created = action === 'create';
    const headers: Record<string, string> = { etag: etagOf(record as StoredRecord) };
    if (created) headers.location = collectionPaths(collection).item((record as StoredRecord).id);
    const body = renderRecord(record as StoredRecord);
    return `{"status":${created ? 201 : 200},"headers":${JSON.stringify(headers)},"body":${body}}`;
  });
  return `[${entries.join(',')}]`;
}

function send(reply: FastifyReply, answer: string) {
  return reply.code(200).type(JSON_TYPE).send(answer);
}
