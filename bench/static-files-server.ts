/**
 * The floor a file download is measured against (bench/files.ts): @fastify/static serving
 * a folder as it is, with nothing in front of it (no logging, rules, records or hooks).
 * It stats the file, sends its ETag and Last-Modified, and streams it, as restock's file
 * route streams its stored copy.
 *
 * Usage: node --import tsx bench/static-files-server.ts <folder> <port>
 */
import fastifyStatic from '@fastify/static';
import Fastify from 'fastify';

const [root = 'files', port = '3003'] = process.argv.slice(2);
const app = Fastify({ logger: false });
app.get('/healthz', async () => ({ status: 'ok' }));
await app.register(fastifyStatic, { root, prefix: '/static/' });
await app.listen({ port: Number(port), host: '127.0.0.1' });
process.once('SIGTERM', () => void app.close());
