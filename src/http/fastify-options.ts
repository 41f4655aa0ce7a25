/**
 * What Fastify takes at construction, before any plugin: what must act before a request is
 * routed (the method override, the request id, the access log's logger) or where no
 * request exists to hook into (framework errors, bad HTTP, timeouts). Each part comes from
 * the concern it belongs to.
 */

import type { Server } from 'node:http';
import type { FastifyHttpOptions } from 'fastify';
import type { Config } from '../config/index.js';
import { accessLogOptions, type LogStream } from './plugins/access-log/index.js';
import { methodOverrideOptions } from './plugins/method-override/index.js';
import { problemOptions } from './plugins/problems/index.js';
import { requestIdOf } from './plugins/request-id.js';
import { serverTimeouts } from './server-timeouts.js';

export function fastifyOptions(config: Config, logStream: LogStream | undefined): FastifyHttpOptions<Server> {
  return {
    ...accessLogOptions(config.logLevel, logStream),
    genReqId: requestIdOf,
    ...methodOverrideOptions(config.methodOverride),
    ...problemOptions,
    ...serverTimeouts(config),
    bodyLimit: config.bodyLimit,
    routerOptions: { ignoreTrailingSlash: true },
    ajv: { customOptions: { removeAdditional: false, coerceTypes: true, useDefaults: true } },
    trustProxy: config.trustProxy || false,
  };
}
