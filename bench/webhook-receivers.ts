/**
 * The webhooks' receivers of bench/webhooks.ts, in a process of their own (pinned beside the
 * load generator, away from the server's core) so that the writer's work does not delay
 * their clocks: `count` plain node:http servers on 127.0.0.1 that answer 204 and note, for
 * every delivery, the record's id, its `updatedAt` (written in the write's
 * transaction), the payload's `timestamp` (the change's logged time) and Date.now() when its
 * body had arrived. Started by `node --import tsx bench/webhook-receivers.ts <count>` with an
 * IPC channel: it sends `{ports}` once listening; `take` answers `{samples}` (four numbers a
 * delivery, flattened) and forgets them; `count` answers `{count}`, deliveries so far.
 */
import { once } from 'node:events';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';

interface Delivered {
  type: string;
  timestamp: string;
  data: { id: number; updatedAt: string };
}

let samples: number[] = [];
let count = 0;

function receive(request: IncomingMessage, response: ServerResponse): void {
  const chunks: Buffer[] = [];
  request.on('data', (chunk: Buffer) => chunks.push(chunk));
  request.on('end', () => {
    const arrival = Date.now();
    const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as Delivered;
    const { data } = body;
    samples.push(data.id, Date.parse(data.updatedAt), Date.parse(body.timestamp), arrival);
    count += 1;
    response.writeHead(204).end();
  });
}

async function main(): Promise<void> {
  const wanted = Number(process.argv[2] ?? 5);
  const ports: number[] = [];
  for (let i = 0; i < wanted; i++) {
    const server = createServer({ keepAliveTimeout: 60_000 }, receive);
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    ports.push((server.address() as { port: number }).port);
  }
  process.on('message', (message: string) => {
    if (message === 'take') {
      process.send?.({ samples });
      samples = [];
    } else if (message === 'count') {
      process.send?.({ count });
    }
  });
  // The bench ends: so does this process.
  process.on('disconnect', () => process.exit(0));
  process.send?.({ ports });
}

void main();
