/**
 * Problems: every refusal and failure is an RFC 9457 problem document (../../problem.ts),
 * whoever raises it: a handler or hook (the error handler), the router (the not-found
 * handler), Fastify before any hook (`frameworkErrors`), or Node before a request exists
 * (`clientErrorHandler`). The last two are construction options, in {@link problemOptions}.
 */
import type { FastifyServerOptions } from 'fastify';
import fp from 'fastify-plugin';
import { HttpProblem, sendProblem, toProblem } from '../../problem.js';
import { answerClientError } from './client-errors.js';

/**
 * Registered first: a route keeps the error handler there was when it was added, so every
 * plugin that adds routes (@fastify/cors adds `OPTIONS *`) depends on this one.
 */
export const problems = fp(
  async (app) => {
    app.setErrorHandler((error, request, reply) => {
      const problem = toProblem(error as Error, request.id);
      if (problem.kind === 'internal-error') request.log.error({ err: error }, 'request failed');
      else if (problem.kind === 'service-unavailable') request.log.warn({ err: error }, 'store unavailable');
      return sendProblem(reply, request, problem);
    });
    // Its hooks are the app's, whenever they were added: Fastify gives them to it when ready.
    app.setNotFoundHandler((request, reply) => {
      sendProblem(reply, request, new HttpProblem('not-found', `Nothing lives at ${request.url.split('?', 1)[0]}.`));
    });
  },
  { name: 'restock-problems', fastify: '5.x' },
);

/** The construction options that answer with problems where no plugin can. */
export const problemOptions: Pick<FastifyServerOptions, 'frameworkErrors' | 'clientErrorHandler'> = {
  frameworkErrors(error, request, reply) {
    // Answered before any hook runs, so without the response-headers plugin's header.
    sendProblem(reply.header('x-content-type-options', 'nosniff'), request, toProblem(error, request.id));
  },
  clientErrorHandler: answerClientError,
};
