/**
 * The access log: one line per request, written when it is answered, through Fastify's
 * own extension point for its request logging (`LogController`). Fastify's default writes
 * two lines, one on arrival and one on completion; the second says everything the first
 * does once it carries the request, and a line costs as much as the rest of a simple read
 * (bench/README.md).
 */
import { type FastifyReply, type FastifyRequest, LogController } from 'fastify';

export class AccessLog extends LogController {
  override incomingRequest(): void {}

  override requestCompleted(error: Error | null | undefined, request: FastifyRequest, reply: FastifyReply): void {
    const line = { req: request, res: reply, responseTime: reply.elapsedTime };
    if (error) reply.log.error({ ...line, err: error }, 'request errored');
    else reply.log.info(line, 'request completed');
  }
}
