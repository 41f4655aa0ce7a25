/**
 * The example shop (schemas/shop) with people in it, for the accounts and rules suites:
 * a product made with the write key, two shoppers who signed themselves up (Ada and Bob)
 * and one member of staff (made with the write key), each signed in, and one order each.
 */
import type { FastifyInstance, InjectOptions, LightMyRequestResponse } from 'fastify';
import type { Config } from '../../src/config/index.js';
import { body, JSON_HEADERS } from './app.js';
import { authorization, withKeys } from './keys.js';

/** Settings of a shop with the test keys, and passwords hashed cheaply (the cost is tested apart). */
export function shopSettings(overrides: Partial<Config> = {}): Partial<Config> {
  return withKeys({ schemas: 'schemas/shop', passwordHashCost: { logN: 10, r: 8, p: 1 }, ...overrides });
}

export const PASSWORDS = {
  ada: 'correct horse battery',
  bob: 'tr0ub4dor&3 staple',
  sam: 'staff only, please',
} as const;
export type Person = keyof typeof PASSWORDS;

export interface SignedIn {
  readonly id: number;
  readonly token: string;
  readonly refreshToken: string;
}

export interface Shop {
  readonly people: Record<Person, SignedIn>;
  readonly productId: number;
  /** Each shopper's order. */
  readonly orders: Record<'ada' | 'bob', number>;
}

/** Who sends a request: a person's token, a key, or no one. */
export type Sender = Person | 'anonymous' | 'read' | 'write';

export function headersOf(shop: Shop | undefined, sender: Sender): Record<string, string> {
  if (sender === 'anonymous') return {};
  if (sender === 'read' || sender === 'write') return authorization(sender);
  if (!shop) throw new Error('no shop yet');
  return { authorization: `Bearer ${shop.people[sender].token}` };
}

/** Sends a request as `sender`; a JSON body when `payload` is given. */
export function send(
  app: FastifyInstance,
  shop: Shop | undefined,
  sender: Sender,
  options: InjectOptions,
): Promise<LightMyRequestResponse> {
  return app.inject({ ...options, headers: { ...JSON_HEADERS, ...options.headers, ...headersOf(shop, sender) } });
}

async function expect(response: Promise<LightMyRequestResponse>, status: number): Promise<Record<string, unknown>> {
  const answered = await response;
  if (answered.statusCode !== status) {
    throw new Error(`expected ${status}, got ${answered.statusCode}: ${answered.body}`);
  }
  return body(answered);
}

export async function signIn(app: FastifyInstance, email: string, password: string): Promise<SignedIn> {
  const signed = await expect(
    app.inject({ method: 'POST', url: '/users/auth/', headers: JSON_HEADERS, payload: { email, password } }),
    200,
  );
  const record = signed.record as { id: number };
  return { id: record.id, token: signed.token as string, refreshToken: signed.refreshToken as string };
}

/** Fills the shop of `app` (built with {@link shopSettings}) and signs everyone in. */
export async function openShop(app: FastifyInstance): Promise<Shop> {
  const product = await expect(
    send(app, undefined, 'write', { method: 'POST', url: '/product/', payload: { name: 'Teapot', price: 19.5 } }),
    201,
  );
  const signUp = (sender: Sender, fields: Record<string, unknown>) =>
    expect(send(app, undefined, sender, { method: 'POST', url: '/user/', payload: fields }), 201);
  await signUp('anonymous', { name: 'Ada', email: 'ada@example.com', password: PASSWORDS.ada });
  await signUp('anonymous', { name: 'Bob', email: 'bob@example.com', password: PASSWORDS.bob });
  await signUp('write', { name: 'Sam', email: 'sam@example.com', password: PASSWORDS.sam, role: 'staff' });
  const people = {
    ada: await signIn(app, 'ada@example.com', PASSWORDS.ada),
    bob: await signIn(app, 'bob@example.com', PASSWORDS.bob),
    sam: await signIn(app, 'sam@example.com', PASSWORDS.sam),
  };
  const shop = { people, productId: product.id as number, orders: { ada: 0, bob: 0 } };
  for (const who of ['ada', 'bob'] as const) {
    const order = await expect(
      send(app, shop, who, {
        method: 'POST',
        url: '/order/',
        payload: { items: [{ productId: shop.productId, quantity: 1 }], status: 'placed' },
      }),
      201,
    );
    shop.orders[who] = order.id as number;
  }
  return shop;
}
