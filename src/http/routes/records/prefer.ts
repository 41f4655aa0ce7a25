import type { FastifyRequest } from 'fastify';

/** Whether the request's `Prefer` header (RFC 7240) asks for `name=value`. */
export function prefers(request: FastifyRequest, name: string, value: string): boolean {
  const header = request.headers.prefer;
  if (!header) return false;
  const wanted = `${name}=${value}`.toLowerCase();
  return (Array.isArray(header) ? header.join(',') : header)
    .toLowerCase()
    .split(',')
    .some((preference) => preference.split(';', 1)[0]?.replaceAll(' ', '').replaceAll('"', '') === wanted);
}
