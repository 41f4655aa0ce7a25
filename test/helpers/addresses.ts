/**
 * Requests from many client addresses to one app, for the suites of shares per address: the
 * app trusts 127.0.0.1 (where `inject` and local sockets come from) as a proxy, and each
 * request names its client in `X-Forwarded-For`, as a proxy in front of restock would.
 */
import { randomBytes } from 'node:crypto';
import type { FastifyInstance, LightMyRequestResponse } from 'fastify';
import type { Config } from '../../src/config/index.js';
import { body, JSON_HEADERS } from './app.js';
import { shopSettings } from './shop-accounts.js';

/** The example shop (./shop-accounts.ts), believing the addresses `inject` and local sockets forward. */
export function shopBehindProxy(overrides: Partial<Config> = {}): Partial<Config> {
  return shopSettings({ trustProxy: '127.0.0.1', ...overrides });
}

/** An IPv6 address of a /64 no other run uses (budgets kept in a shared Redis are counted by /64). */
export function uniqueAddress(): string {
  const [a, b] = [randomBytes(2).toString('hex'), randomBytes(2).toString('hex')];
  return `2001:db8:${a}:${b}::1`;
}

/** The headers of a request from `address`, with an account's token when given. */
export function from(address: string, token?: string): Record<string, string> {
  return { ...JSON_HEADERS, 'x-forwarded-for': address, ...(token && { authorization: `Bearer ${token}` }) };
}

/** A person of the shop, made and signed in from one address. */
export interface Person {
  readonly id: number;
  readonly email: string;
  readonly password: string;
  readonly token: string;
}

export function signUp(app: FastifyInstance, address: string, name: string): Promise<LightMyRequestResponse> {
  const payload = { name, email: `${name.toLowerCase()}@example.com`, password: `${name} knows this one` };
  return app.inject({ method: 'POST', url: '/user/', headers: from(address), payload });
}

export function signInAs(
  app: FastifyInstance,
  address: string,
  email: string,
  password: string,
): Promise<LightMyRequestResponse> {
  return app.inject({ method: 'POST', url: '/users/auth/', headers: from(address), payload: { email, password } });
}

/** Signs `name` up and in from `address`; throws unless both succeed. */
export async function newPerson(app: FastifyInstance, address: string, name: string): Promise<Person> {
  const made = await signUp(app, address, name);
  if (made.statusCode !== 201) throw new Error(`sign-up: ${made.statusCode} ${made.body}`);
  const email = `${name.toLowerCase()}@example.com`;
  const password = `${name} knows this one`;
  const signed = await signInAs(app, address, email, password);
  if (signed.statusCode !== 200) throw new Error(`sign-in: ${signed.statusCode} ${signed.body}`);
  return { id: body(made).id as number, email, password, token: body(signed).token as string };
}
