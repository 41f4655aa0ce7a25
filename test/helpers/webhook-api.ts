/** What the webhooks' suites share: requests with a key, secrets, a WEBHOOKS file, rows in the store. */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { FastifyInstance, LightMyRequestResponse } from 'fastify';
import type { Delivery, WebhookTables } from '../../src/store/webhook-model.js';
import { JSON_HEADERS } from './app.js';
import { authorization, type Credential } from './keys.js';

/** A name that never resolves (.invalid): whatever the delivery sends there fails, and no one hears it. */
export const HOOK_URL = 'https://receiver.invalid/restock';

/** A Standard Webhooks secret, as a receiver would be given. */
export function secret(): string {
  return `whsec_${randomBytes(32).toString('base64')}`;
}

/** Sends a request with `credential` (a write key by default), a JSON body when `payload` is given. */
export function hook(
  app: FastifyInstance,
  method: 'GET' | 'POST' | 'PUT' | 'DELETE',
  url: string,
  payload?: unknown,
  credential: Credential = 'write',
  headers: Record<string, string> = {},
): Promise<LightMyRequestResponse> {
  return app.inject({
    method,
    url,
    headers: { ...(payload === undefined ? {} : JSON_HEADERS), ...authorization(credential), ...headers },
    ...(payload === undefined ? {} : { payload: payload as object }),
  });
}

/** A WEBHOOKS file holding `entries` (as they are: the suites write mistakes too); its path. */
export function webhooksFile(entries: unknown, name = 'webhooks.json'): string {
  const file = join(mkdtempSync(join(tmpdir(), 'restock-webhooks-')), name);
  writeFileSync(file, typeof entries === 'string' ? entries : JSON.stringify(entries));
  return file;
}

/** Stores `deliveries` of webhook `id` as its delivery engine would: under a lease, at its generation. */
export async function keepDeliveries(tables: WebhookTables, id: number, deliveries: readonly Delivery[]) {
  const owner = 'test-engine';
  const leased = await tables.lease(id, owner, Date.now(), 60_000);
  if (!leased) throw new Error(`no lease on webhook ${id}`);
  const settled = await tables.settle(id, owner, leased.generation, await tables.positions(id), deliveries);
  await tables.release(id, owner);
  if (!settled) throw new Error(`webhook ${id}: settle refused`);
}

/** A delivery of change `seq` of products' record `recordId`, in `state`, attempted at `at`. */
export function delivery(id: number, seq: number, state: Delivery['state'], at: number): Delivery {
  return {
    webhookId: id,
    messageId: `evt_products_${seq}`,
    collection: 'products',
    seq,
    recordId: seq,
    type: 'products.updated',
    occurredAt: at - 1000,
    body: JSON.stringify({ type: 'products.updated', timestamp: new Date(at - 1000).toISOString(), data: { id: seq } }),
    state,
    attempts: state === 'delivered' ? 1 : 3,
    status: state === 'delivered' ? 200 : 500,
    error: state === 'delivered' ? null : 'answered 500',
    firstAttemptAt: at - 500,
    lastAttemptAt: at,
    nextAt: state === 'retrying' ? at + 5000 : null,
  };
}
