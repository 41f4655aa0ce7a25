/** The answer of every way to sign in (a password, a refresh, a provider's one-time code). */
import type { FastifyReply } from 'fastify';
import type { IssuedTokens } from '../../../records/accounts/index.js';
import { JSON_TYPE, renderRecord } from '../../../records/render.js';
import type { StoredRecord } from '../../../store/store.js';

/** `{ token, refreshToken, expiresIn, record }`, the record spliced in as stored (its password never is). */
export function sendTokens(reply: FastifyReply, tokens: IssuedTokens, record: StoredRecord) {
  const head = JSON.stringify({ token: tokens.token, refreshToken: tokens.refreshToken, expiresIn: tokens.expiresIn });
  return reply
    .code(200)
    .header('cache-control', 'no-store')
    .type(JSON_TYPE)
    .send(`${head.slice(0, -1)},"record":${renderRecord(record)}}`);
}
