/**
 * The framework's floor: a bare Fastify app answering GET /user/{id}/ with restock's own
 * SQLite connection, statement and rendering, and nothing else (no logging, hooks or
 * plugins). Set beside restock and the node:http baseline by bench/framework-floor.ts, it
 * tells what Fastify costs and what restock's per-request services cost on top of it.
 *
 * Usage: node --import tsx bench/fastify-server.ts <database path> <port>
 */
import Fastify from 'fastify';
import { etagOf } from '../src/records/conditional.js';
import { JSON_TYPE, renderRecord } from '../src/records/render.js';
import { collectionSql } from '../src/store/sql/record-sql.js';
import { openConnection, statementRunner } from '../src/store/sqlite/connection.js';
import { sqliteDialect } from '../src/store/sqlite/sqlite-dialect.js';
import type { StoredRecord } from '../src/store/store.js';
import { CATALOG } from './schema.js';

const [path = 'bench-fastify.db', port = '3002'] = process.argv.slice(2);
const db = openConnection(path, CATALOG);
const run = statementRunner(db);
const { get } = collectionSql(sqliteDialect, 'users');

const app = Fastify({ logger: false });
app.get('/healthz', async () => ({ status: 'ok' }));
app.get<{ Params: { id: string } }>('/user/:id/', (request, reply) => {
  const row = run(get({ id: Number(request.params.id) })).rows[0] as StoredRecord | undefined;
  if (!row) return reply.code(404).send();
  return reply.header('etag', etagOf(row)).type(JSON_TYPE).send(renderRecord(row));
});
await app.listen({ port: Number(port), host: '127.0.0.1' });
process.once('SIGTERM', () => app.close().then(() => db.close()));
