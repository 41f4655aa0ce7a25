/**
 * The document and the reference page: the OpenAPI document (src/api/openapi/) at
 * /openapi.json and /openapi.yaml, and a reference page at /docs/ (./docs-page.ts): Swagger
 * UI, from the files @fastify/swagger-ui ships, with "try it" against this server.
 * All of it is public: it describes the API, never a record.
 */
import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import { Type } from 'typebox';
import { JSON_SERVERS, type Server, serversFor, withServersFrom, YAML_SERVERS } from '../../api/openapi/servers.js';
import { JSON_TYPE } from '../../records/render.js';
import { registerPaths } from '../paths.js';
import { REQUEST_PLUGINS } from '../plugins/index.js';
import { referencePage } from './docs-page.js';

/**
 * The reference page adds its routes in a scope of its own, so it comes after every
 * plugin that acts on requests; the generator must be there already.
 */
export const apiDocs = fp(serveDocs, {
  name: 'restock-docs',
  fastify: '5.x',
  dependencies: ['restock-openapi', ...REQUEST_PLUGINS],
});

export interface DocsOptions {
  /** PUBLIC_URL: the document's server when set; else each request's own origin. */
  publicUrl: string;
}

async function serveDocs(app: FastifyInstance, { publicUrl }: DocsOptions): Promise<void> {
  await app.register(referencePage);

  // Rendered once, on first request; each request then gets its own servers entry (src/api/openapi/servers.ts).
  let json: ((servers: Server[]) => string) | undefined;
  let yaml: ((servers: Server[]) => string) | undefined;
  const service = { tags: ['service'] };
  // What either form holds once read: the same document, an object whichever way it is written.
  const document = Type.Object(
    { openapi: Type.String(), info: Type.Object({}), paths: Type.Object({}) },
    { description: 'An OpenAPI 3.1 document: its version, info, paths and the rest.' },
  );
  registerPaths(app, [
    {
      url: '/openapi.json',
      policy: { public: true },
      operations: {
        GET: {
          docs: {
            ...service,
            summary: 'This API as an OpenAPI 3.1 document (JSON)',
            operationId: 'getOpenApiJson',
            description:
              'This document, with its servers set to the origin the request came to (or PUBLIC_URL). Public.',
            response: {
              200: { description: 'The document.', content: { 'application/json': { schema: document } } },
            },
          },
          handler: (request, reply) => {
            json ??= withServersFrom(JSON.stringify(app.swagger()), JSON_SERVERS.entry, JSON_SERVERS.write);
            return reply.type(JSON_TYPE).send(json(serversFor(request, publicUrl)));
          },
        },
      },
    },
    {
      url: '/openapi.yaml',
      policy: { public: true },
      operations: {
        GET: {
          docs: {
            ...service,
            summary: 'This API as an OpenAPI 3.1 document (YAML)',
            operationId: 'getOpenApiYaml',
            description: 'The same document as /openapi.json, written as YAML (application/yaml). Public.',
            response: {
              200: { description: 'The document.', content: { 'application/yaml': { schema: document } } },
            },
          },
          handler: (request, reply) => {
            yaml ??= withServersFrom(app.swagger({ yaml: true }), YAML_SERVERS.entry, YAML_SERVERS.write);
            return reply.type('application/yaml; charset=utf-8').send(yaml(serversFor(request, publicUrl)));
          },
        },
      },
    },
  ]);
}
