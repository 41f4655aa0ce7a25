/**
 * The routes around the collections: liveness, readiness, the index of links, and the
 * descriptions behind each problem `type`.
 */
import type { FastifyInstance } from 'fastify';
import { Type } from 'typebox';
import { canonicalPaths, type ResourceDefinition } from '../resources.js';
import type { Store } from '../store/store.js';
import { registerPaths } from './paths.js';
import { HttpProblem, PROBLEM_TYPES, type ProblemKind, problemTypeUri } from './problem.js';
import { JSON_TYPE } from './record-response.js';

export function registerServiceRoutes(app: FastifyInstance, store: Store, resources: readonly ResourceDefinition[]) {
  const index = JSON.stringify({
    name: 'restock',
    collections: Object.fromEntries(
      resources.map((r) => {
        const paths = canonicalPaths(r);
        return [
          r.plural,
          { description: r.description, list: paths.collection, create: paths.create, item: paths.item('{id}') },
        ];
      }),
    ),
    health: '/healthz',
    ready: '/readyz',
  });

  registerPaths(app, [
    {
      url: '/',
      operations: { GET: { handler: (_request, reply) => reply.type(JSON_TYPE).send(index) } },
    },
    {
      url: '/healthz',
      operations: { GET: { handler: async () => ({ status: 'ok' }) } },
    },
    {
      url: '/readyz',
      operations: {
        GET: {
          async handler() {
            try {
              await store.ping();
            } catch (error) {
              throw new HttpProblem('service-unavailable', `The ${store.dialect} database does not answer.`, {
                headers: { 'retry-after': '5' },
                cause: error,
              });
            }
            return { status: 'ready', store: store.dialect };
          },
        },
      },
    },
    {
      url: '/problems/:kind',
      operations: {
        GET: {
          schema: { params: Type.Object({ kind: Type.String() }) },
          async handler(request) {
            const kind = (request.params as { kind: string }).kind;
            if (!Object.hasOwn(PROBLEM_TYPES, kind)) throw new HttpProblem('not-found', `No problem type "${kind}".`);
            return { type: problemTypeUri(kind as ProblemKind), ...PROBLEM_TYPES[kind as ProblemKind] };
          },
        },
      },
    },
  ]);
}
