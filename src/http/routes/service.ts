/**
 * The routes around the collections: liveness, readiness, the index of links (or the
 * browser console, for a browser), and the descriptions behind each problem `type`. None
 * shows a record, so all are public; the probes also stay out of the request budget
 * (load balancers and orchestrators must get the truth), and liveness out of load shedding
 * (a busy process is not a dead one).
 */

import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import { Type } from 'typebox';
import { jsonResponse, problemResponses } from '../../api/openapi/responses.js';
import {
  HealthComponent,
  IndexComponent,
  ProblemKindParams,
  ProblemTypeComponent,
  ReadyComponent,
} from '../../api/openapi/service-components.js';
import { PROBLEM_TYPES, type ProblemKind, problemTypeUri } from '../../api/problem-types.js';
import type { Catalog } from '../../core/catalog.js';
import { collectionPaths } from '../../core/collection.js';
import { isScalar } from '../../core/references.js';
import { JSON_TYPE } from '../../records/render.js';
import type { Store } from '../../store/store.js';
import { registerPaths } from '../paths.js';
import { HttpProblem } from '../problem.js';
import { appendVary } from '../vary.js';

const service = { tags: ['service'] };

export interface ServiceRoutesOptions {
  store: Store;
  /** The collections, each listed with its paths and the references its records hold. */
  catalog: Catalog;
}

export const serviceRoutes = fp(serveService, {
  name: 'restock-service-routes',
  fastify: '5.x',
  dependencies: ['restock-problems', 'restock-openapi', 'restock-console'],
});

async function serveService(app: FastifyInstance, { store, catalog }: ServiceRoutesOptions): Promise<void> {
  const index = JSON.stringify({
    name: 'restock',
    collections: Object.fromEntries(
      catalog.collections.map((r) => {
        const paths = collectionPaths(r);
        // What `expand=` takes, and whether each reference holds one id or an array of them.
        const own = r.references.map((reference) => ({
          name: reference.name,
          collection: reference.target.plural,
          many: !isScalar(reference),
        }));
        return [
          r.plural,
          {
            description: r.description,
            list: paths.collection,
            create: paths.create,
            item: paths.item('{id}'),
            events: `${paths.collection}events/`,
            ...(own.length > 0 && { references: own }),
            // Accounts sign in here, naming one of these fields beside the password.
            ...(r.account && { auth: `${paths.collection}auth/`, signInWith: r.unique.map((u) => u.path.join('.')) }),
            // Sign-up mails a link to prove the address: an app (the console) says so.
            ...(r.account?.verify && { verify: r.account.verify }),
          },
        ];
      }),
    ),
    health: '/healthz',
    ready: '/readyz',
    docs: '/docs/',
    openapi: '/openapi.json',
    metrics: '/metrics',
  });

  registerPaths(app, [
    {
      url: '/',
      policy: { public: true },
      operations: {
        GET: {
          docs: {
            ...service,
            summary: 'Index of links (the browser console for a browser)',
            operationId: 'getIndex',
            description:
              'API clients get a JSON index of links; a request that prefers text/html (a browser) gets the ' +
              'console, a page to list, create, edit and delete records. Responses vary on Accept.',
            response: {
              200: {
                description: 'The index, or the console page.',
                headers: { Vary: Type.String({ description: 'Accept: the answer depends on it.' }) },
                content: {
                  'application/json': { schema: IndexComponent },
                  'text/html': { schema: Type.String() },
                },
              },
              ...problemResponses([]),
            },
          },
          handler: (request, reply) => {
            appendVary(reply, 'Accept');
            if (app.consolePage.wanted(request)) return app.consolePage.send(reply);
            return reply.type(JSON_TYPE).send(index);
          },
        },
      },
    },
    {
      url: '/healthz',
      logLevel: 'warn',
      policy: { public: true, rateLimit: false, shed: false },
      operations: {
        GET: {
          docs: {
            ...service,
            summary: 'Liveness: the process runs',
            operationId: 'getLiveness',
            description: 'Answers 200 while the process runs, without touching the database: for a liveness probe.',
            response: { 200: jsonResponse('Alive.', HealthComponent), ...problemResponses([]) },
          },
          handler: async () => ({ status: 'ok' }),
        },
      },
    },
    {
      url: '/readyz',
      logLevel: 'warn',
      policy: { public: true, rateLimit: false },
      operations: {
        GET: {
          docs: {
            ...service,
            summary: 'Readiness: the database answers',
            operationId: 'getReadiness',
            description: 'Answers 200 once the database answers a ping, 503 while it does not: for a readiness probe.',
            response: {
              200: jsonResponse('Ready to serve.', ReadyComponent),
              ...problemResponses(['service-unavailable']),
            },
          },
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
      policy: { public: true },
      operations: {
        GET: {
          schema: { params: ProblemKindParams },
          docs: {
            ...service,
            summary: 'What a problem type means',
            operationId: 'getProblemType',
            description:
              "The page a problem document's `type` points to: the status, title and meaning of one kind of error.",
            response: {
              200: jsonResponse('The problem type: its status, title and meaning.', ProblemTypeComponent),
              ...problemResponses(['not-found']),
            },
          },
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
