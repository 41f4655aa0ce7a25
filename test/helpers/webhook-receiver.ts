/** A webhook receiver for tests: a plain node:http server on 127.0.0.1 that keeps what it was sent. */
import { once } from 'node:events';
import { createServer, type IncomingHttpHeaders, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface Received {
  readonly headers: IncomingHttpHeaders;
  readonly body: string;
}

/** How the receiver answers a request whose body it has read. */
export type Answer = (request: Received, response: ServerResponse) => void;

export async function webhookReceiver(answer: Answer = (_, response) => response.writeHead(204).end()) {
  const received: Received[] = [];
  let connections = 0;
  const server = createServer(async (request: IncomingMessage, response) => {
    const chunks: Buffer[] = [];
    for await (const chunk of request) chunks.push(chunk as Buffer);
    const got = { headers: request.headers, body: Buffer.concat(chunks).toString('utf8') };
    received.push(got);
    answer(got, response);
  });
  server.on('connection', () => {
    connections += 1;
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  return {
    port,
    url: `http://127.0.0.1:${port}/hooks`,
    received,
    /** TCP connections it accepted. */
    connections: () => connections,
    close: () => {
      server.closeAllConnections();
      return new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
