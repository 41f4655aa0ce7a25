import type { FastifyReply } from 'fastify';

/** Adds header names to the response's `Vary`, keeping those other hooks put there. */
export function appendVary(reply: FastifyReply, names: string): void {
  const existing = reply.getHeader('vary');
  reply.header('vary', existing ? `${existing}, ${names}` : names);
}
