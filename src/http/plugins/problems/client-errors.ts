/**
 * What Node refuses before a request exists (a timeout, oversized headers, bytes that are
 * not HTTP), answered with a problem document as Fastify's own handler does with plain
 * JSON. There is no request path, so no `instance`.
 */
import { STATUS_CODES } from 'node:http';
import type { Socket } from 'node:net';
import type { FastifyInstance } from 'fastify';
import { HttpProblem, PROBLEM_TYPE, problemDocument } from '../../problem.js';

/** Fastify's `clientErrorHandler`: answers, then closes the connection. */
export function answerClientError(this: FastifyInstance, error: Error & { code?: string }, socket: Socket): void {
  if (error.code === 'ECONNRESET' || socket.destroyed) return;
  const problem =
    error.code === 'ERR_HTTP_REQUEST_TIMEOUT'
      ? new HttpProblem('request-timeout', 'The request did not arrive in full in the time this server allows.')
      : error.code === 'HPE_HEADER_OVERFLOW'
        ? new HttpProblem('headers-too-large', 'The request headers are larger than this server accepts.')
        : new HttpProblem('bad-request', 'The request is not valid HTTP/1.1.');
  this.log.debug({ err: error }, 'client error');
  if (socket.writable) {
    const body = problemDocument(problem, undefined);
    socket.write(
      `HTTP/1.1 ${problem.status} ${STATUS_CODES[problem.status]}\r\nContent-Type: ${PROBLEM_TYPE}\r\n` +
        'X-Content-Type-Options: nosniff\r\n' +
        `Content-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
    );
  }
  socket.destroy(error);
}
