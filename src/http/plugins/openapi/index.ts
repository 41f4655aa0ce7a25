/**
 * The API's description registered with the server: @fastify/swagger learns the routes as
 * they are added and builds the document that src/api/openapi/index.ts describes, which
 * ../../routes/docs.ts serves.
 */
import swagger from '@fastify/swagger';
import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import { describeApi, type OpenApiOptions } from '../../../api/openapi/index.js';

/** The document's generator. Every plugin that adds documented routes depends on this one. */
export const openApi = fp(
  async (app: FastifyInstance, options: OpenApiOptions) => {
    const description = describeApi(options);
    app.addHook('onRoute', description.documentRoute);
    await app.register(swagger, description.swagger);
  },
  { name: 'restock-openapi', fastify: '5.x' },
);
