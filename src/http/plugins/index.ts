/**
 * The plugins every request meets, one per concern, each named so that the plugins after
 * it can depend on it (src/http/app.ts registers them in order; Fastify checks it).
 */
export { accessControl } from './access-control/access-control.js';
export { compression } from './compression/index.js';
export { connectionLimit } from './connection-limit.js';
export { cors } from './cors/index.js';
export { jsonBody } from './json-body.js';
export { lingeringClose } from './lingering-close.js';
export { loadShedding } from './load-shedding.js';
export { methodOverride } from './method-override/index.js';
export { metrics } from './metrics/metrics.js';
export { multipartBody } from './multipart-body.js';
export { problems } from './problems/index.js';
export { rateLimit } from './rate-limit/index.js';
export { requestId } from './request-id.js';
export { responseHeaders } from './response-headers.js';

/**
 * Every plugin above that acts on requests or their connections (hooks, the body parser,
 * the error handler, the connection cap). A plugin that adds its routes in an encapsulated
 * scope of its own depends on all of them: a scope takes the hooks, parsers and error
 * handler its parent has when it is made, and none added after.
 */
export const REQUEST_PLUGINS = [
  'restock-connection-limit',
  'restock-problems',
  'restock-response-headers',
  'restock-compression',
  'restock-lingering-close',
  'restock-request-id',
  'restock-load-shedding',
  'restock-method-override',
  'restock-cors',
  'restock-access-control',
  'restock-rate-limit',
  'restock-json-body',
  'restock-multipart-body',
  'restock-metrics',
];
