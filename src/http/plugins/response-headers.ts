/**
 * The headers every response carries, problems and 404s too, in one onSend hook: its
 * Content-Type is to be believed (no browser sniffs JSON into HTML), a page (the console,
 * the reference) passes no Referer on, and while the app closes, the connection closes
 * after it.
 */
import fp from 'fastify-plugin';

export const responseHeaders = fp(
  async (app) => {
    // While closing, a keep-alive connection whose request is still in flight would stay
    // open (and keep the process alive) until its idle timeout; answering its last request
    // with `Connection: close` lets it end as soon as the response is out.
    let closing = false;
    app.addHook('preClose', async () => {
      closing = true;
    });
    app.addHook('onSend', (_request, reply, payload, done) => {
      if (closing) reply.header('connection', 'close');
      reply.header('x-content-type-options', 'nosniff');
      if (String(reply.getHeader('content-type')).startsWith('text/html'))
        reply.header('referrer-policy', 'no-referrer');
      done(null, payload);
    });
  },
  { name: 'restock-response-headers', fastify: '5.x' },
);
