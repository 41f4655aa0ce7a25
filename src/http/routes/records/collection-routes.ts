/**
 * The REST routes of one collection, derived from its definition: list, read, create,
 * modify and delete at the canonical paths and the accepted aliases (each in ./operations/),
 * and its change feed.
 */
import type { FastifyInstance, FastifySchema } from 'fastify';
import { operationDocs } from '../../../api/openapi/operations.js';
import type { Collection } from '../../../core/collection.js';
import type { RuleOperation } from '../../../core/rules/rule-tree.js';
import { type Operation, registerPaths } from '../../paths.js';
import { callerOf, tokenExpiryOf } from '../../plugins/access-control/access-control.js';
import { followChanges } from './change-feed.js';
import { type OperationContext, operationContext } from './operations/context.js';
import { createOperation } from './operations/create.js';
import { modifyOperation, removeOperation } from './operations/modify-delete.js';
import { listOperation, readOperation } from './operations/reads.js';
import { EventsQueryShape } from './request-shapes.js';
import type { CollectionRoutesOptions } from './routes-options.js';

export type { CollectionRoutesOptions } from './routes-options.js';

/** Registers every path of `collection`, each documented (src/api/openapi/operations.ts). */
export function registerCollectionRoutes(
  app: FastifyInstance,
  collection: Collection,
  options: CollectionRoutesOptions,
): void {
  const docs = operationDocs(collection, options.kit.limits.maxBulkRecords);
  const context = operationContext(options);
  const op = operations(context);
  // Each method's policy, as a batch's operation gets it: where the collection has rules, its rule decides, or a key is needed.
  const withDocs = (operation: Operation, more: FastifySchema, rule: RuleOperation): Operation => {
    const policy = options.kit.access.policy(rule);
    return { ...operation, docs: more, ...(policy.rules !== undefined && { policy }) };
  };
  const list = withDocs(op.list, docs.list, 'list');
  const create = withDocs(op.create, docs.create, 'create');
  const itemOps = {
    GET: withDocs(op.read, docs.read, 'view'),
    PUT: withDocs(op.modify, docs.modify, 'update'),
    PATCH: withDocs(op.modify, docs.patch, 'update'),
    DELETE: withDocs(op.remove, docs.remove, 'delete'),
  };
  registerPaths(app, [
    { url: `/${collection.plural}/`, operations: { GET: list } },
    {
      url: `/${collection.plural}/events/`,
      policy: { tokenInQuery: true },
      operations: { GET: withDocs(op.events, docs.events, 'list') },
    },
    { url: `/${collection.singular}/`, operations: { POST: create } },
    { url: `/${collection.singular}/:id/`, operations: itemOps },
    // POST /users/ creates as POST /user/ does; the document shows it as the bulk create.
    { url: `/${collection.plural}/`, operations: { POST: withDocs(op.create, docs.bulkCreate, 'create') } },
    // The plural form most REST clients assume for one record: /users/7/.
    { url: `/${collection.plural}/:id/`, alias: true, operations: itemOps },
  ]);
}

function operations(context: OperationContext) {
  const { kit, options } = context;
  const events: Operation = {
    schema: { querystring: EventsQueryShape },
    handler: (request, reply) =>
      followChanges(
        request,
        reply,
        {
          ...options.feeds,
          collection: kit.collection,
          maxFieldNameLength: kit.limits.maxFieldNameLength,
          fields: kit.queryFields,
        },
        (query) => kit.access.narrow(callerOf(request), query),
        tokenExpiryOf(request),
      ),
  };
  return {
    list: listOperation(context),
    read: readOperation(context),
    create: createOperation(context),
    modify: modifyOperation(context),
    remove: removeOperation(context),
    events,
  };
}
