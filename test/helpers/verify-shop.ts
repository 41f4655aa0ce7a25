/**
 * A small app whose accounts verify their email (`"x-auth": {"verify": "email"}`), for the
 * mail and verification suites: `users` (anyone signs up) and `posts`, which only a verified
 * account may create (`"create": "auth.verified"`). Requests go over real HTTP.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const USERS = {
  type: 'object',
  required: ['name', 'email'],
  additionalProperties: false,
  properties: {
    name: { type: 'string', minLength: 1, maxLength: 200 },
    email: { type: 'string', format: 'email', maxLength: 254 },
    password: { type: 'string', minLength: 8, maxLength: 200, writeOnly: true },
  },
  'x-unique': [{ field: 'email', ignoreCase: true }],
  'x-auth': { claims: [], verify: 'email' },
  'x-rules': { create: 'true', view: 'id == auth.id', update: 'id == auth.id' },
};

const POSTS = {
  type: 'object',
  required: ['title'],
  properties: { title: { type: 'string', maxLength: 200 } },
  'x-rules': { create: 'auth.verified', list: 'true', view: 'true' },
};

/** A folder of the two schemas, for SCHEMAS; `mail` is the users' own templates (`x-auth.mail`). */
export function verifyShopSchemas(mail?: Record<string, unknown>): string {
  const folder = mkdtempSync(join(tmpdir(), 'restock-verify-'));
  const users = mail ? { ...USERS, 'x-auth': { ...USERS['x-auth'], mail } } : USERS;
  writeFileSync(join(folder, 'users.schema.json'), JSON.stringify(users));
  writeFileSync(join(folder, 'posts.schema.json'), JSON.stringify(POSTS));
  return folder;
}

/** Settings every server of these suites runs with: a cheap password hash. */
export const VERIFY_SHOP_ENV = { PASSWORD_HASH_COST: '10,8,1', RATE_LIMIT_MAX: '0' };

export interface Answer {
  status: number;
  body: Record<string, unknown>;
  headers: Headers;
}

/** A JSON request to `url` + `path`, with `token` as its bearer if given. */
export async function call(
  url: string,
  method: string,
  path: string,
  payload?: unknown,
  token?: string,
): Promise<Answer> {
  const response = await fetch(`${url}${path}`, {
    method,
    headers: {
      ...(payload !== undefined && { 'content-type': 'application/json' }),
      ...(token && { authorization: `Bearer ${token}` }),
    },
    ...(payload !== undefined && { body: JSON.stringify(payload) }),
  });
  const text = await response.text();
  return {
    status: response.status,
    body: text ? (JSON.parse(text) as Record<string, unknown>) : {},
    headers: response.headers,
  };
}

export const PASSWORD = 'correct horse battery';

/** Signs `email` up: the created account. */
export async function signUp(url: string, email: string): Promise<Answer> {
  return call(url, 'POST', '/users/', { name: email, email, password: PASSWORD });
}

/** Signs `email` in: its access and refresh tokens. */
export async function signInAs(url: string, email: string): Promise<{ token: string; refreshToken: string }> {
  const answer = await call(url, 'POST', '/users/auth/', { email, password: PASSWORD });
  if (answer.status !== 200) throw new Error(`sign-in of ${email}: ${answer.status} ${JSON.stringify(answer.body)}`);
  return answer.body as { token: string; refreshToken: string };
}
