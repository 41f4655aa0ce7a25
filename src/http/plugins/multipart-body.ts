/**
 * `multipart/form-data` bodies, for creates and changes of collections with file fields:
 * @fastify/multipart (busboy) registers the type, and a route reads the parts as they
 * stream (routes/records/operations/multipart-body.ts), with limits of its own collection's.
 * Registered after the JSON parser, which removes every parser before it. Only where some
 * collection has file fields (`files`): @fastify/multipart hooks every request and response,
 * and an app without files answers a multipart body `415` as it does any other non-JSON one.
 */
import multipart from '@fastify/multipart';
import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';

export const multipartBody = fp(
  async (app: FastifyInstance, { files }: { files: boolean }) => {
    if (!files) return;
    // Bounds for any route; a route reading parts sets its collection's own, tighter ones.
    await app.register(multipart, {
      limits: { fieldNameSize: 100, fields: 1000, files: 100, parts: 1100, headerPairs: 100 },
    });
  },
  { name: 'restock-multipart-body', fastify: '5.x', dependencies: ['restock-json-body'] },
);
