/**
 * The document and the reference page: the OpenAPI document (../openapi/) at
 * /openapi.json and /openapi.yaml, and a reference page at /docs/ served by
 * @fastify/swagger-ui from the files in its package, with "try it" against this server.
 * All of it is public: it describes the API, never a record.
 */
import swaggerUi from '@fastify/swagger-ui';
import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import { Type } from 'typebox';
import { JSON_TYPE } from '../../records/render.js';
import { JSON_SERVERS, type Server, serversFor, withServersFrom, YAML_SERVERS } from '../openapi/servers.js';
import { registerPaths } from '../paths.js';
import { REQUEST_PLUGINS } from '../plugins/index.js';
import { routesTakePolicy } from '../route-policy.js';

/** The reference page's top bar: the name, linking back to the console. */
const LOGO =
  '<svg xmlns="http://www.w3.org/2000/svg" width="120" height="32" viewBox="0 0 120 32">' +
  '<text x="0" y="24" font-family="system-ui, sans-serif" font-size="24" font-weight="700" fill="#ffffff">restock</text>' +
  '</svg>';

/** Where the reference page lives. */
const DOCS_PREFIX = '/docs';

/**
 * @fastify/swagger-ui adds its routes in a scope of its own, so it comes after every
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

  // Rendered once, on first request; each request then gets its own servers entry (../openapi/servers.ts).
  let json: ((servers: Server[]) => string) | undefined;
  let yaml: ((servers: Server[]) => string) | undefined;
  const service = { tags: ['service'] };
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
            response: {
              200: { description: 'The document.', content: { 'application/json': { schema: Type.Object({}) } } },
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
            response: {
              200: { description: 'The document.', content: { 'application/yaml': { schema: Type.String() } } },
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

/**
 * The reference page, in a scope of its own where every route is public. Its copy of the
 * document (/docs/json) keeps the generated servers entry: a relative one resolves against
 * the page's own address in the browser, and its YAML twin stays rendered once.
 */
async function referencePage(scope: FastifyInstance): Promise<void> {
  routesTakePolicy(scope, { public: true });
  await scope.register(swaggerUi, {
    routePrefix: DOCS_PREFIX,
    staticCSP: true,
    transformStaticCSP: selfOnly,
    logo: { type: 'image/svg+xml', content: LOGO, href: '/', target: '_self' },
    // No call to the public validator service: every request the page makes stays here.
    // BaseLayout has no top bar. The top bar's Swagger logo is an SVG with a <style> element,
    // which the page's policy (style-src 'self') blocks and Chromium reports as a violation,
    // before @fastify/swagger-ui replaces it with restock's logo.
    uiConfig: {
      validatorUrl: null,
      deepLinking: true,
      displayRequestDuration: true,
      tryItOutEnabled: true,
      layout: 'BaseLayout',
    },
  });
}

/**
 * Narrows @fastify/swagger-ui's Content-Security-Policy to this server: its default allows
 * styles and fonts from any https: origin and images from the public validator, and
 * upgrades requests to https, which a plain-HTTP server cannot answer.
 */
function selfOnly(policy: string): string {
  return `${policy
    .replaceAll(' https:', '')
    .replaceAll(' validator.swagger.io', '')
    .replace(/\s*upgrade-insecure-requests;?/, '')
    .trim()} connect-src 'self';`;
}
