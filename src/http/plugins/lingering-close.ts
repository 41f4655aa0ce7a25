/**
 * Lingering close. A body refused for its size (`413`) is refused before it is read, while
 * the client is still sending it: closing the connection then resets it, and the client
 * reports a broken pipe instead of the answer (Node's fetch did so 16 times in 20 on Node 20,
 * every time on 24). As nginx does, the server reads on and throws away what still comes,
 * up to {@link LINGER_BYTES}, so that the client gets to read its `413`; past that, or past
 * REQUEST_TIMEOUT, the connection is closed. A body that ends in time leaves the
 * connection open for the next request.
 */
import fp from 'fastify-plugin';

/** The most bytes of a refused body read and thrown away before the connection is closed. */
export const LINGER_BYTES = 16 * 1024 * 1024;

export const lingeringClose = fp(
  async (app) => {
    // A callback hook, not an async one: it runs on every response, and nearly always passes.
    app.addHook('onSend', (request, reply, payload, done) => {
      const incoming = request.raw;
      if (reply.statusCode !== 413 || incoming.complete) return done(null, payload);
      // Fastify asks for the connection to close at once; it closes once the body is read instead.
      reply.removeHeader('connection');
      let discarded = 0;
      incoming.on('data', (chunk: Buffer) => {
        discarded += chunk.length;
        if (discarded > LINGER_BYTES) incoming.socket.destroy();
      });
      incoming.resume();
      done(null, payload);
    });
  },
  { name: 'restock-lingering-close', fastify: '5.x', dependencies: ['restock-problems'] },
);
