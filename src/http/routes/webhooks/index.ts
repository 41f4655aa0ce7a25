/**
 * The webhooks' routes: what a write key manages them with (src/records/webhooks/ delivers
 * them). Webhooks reach outside, carry secrets and show every record they sent, so each of
 * these needs a write key, reads included (`writeKey`: an account's token or a read key gets
 * 403). After any change, `notify` tells the delivery engine, so that it acts now rather
 * than at its next look.
 */
import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import { registerPaths } from '../../paths.js';
import { definitionPaths } from './definition-routes.js';
import { deliveryPaths } from './delivery-routes.js';
import { secretPaths } from './secret-route.js';
import { type WebhookRoutesOptions, webhookRouteContext } from './webhook-context.js';

export type { WebhookRoutesOptions } from './webhook-context.js';

export const webhookRoutes = fp(serveWebhooks, {
  name: 'restock-webhook-routes',
  fastify: '5.x',
  // The delivery: `notify` (app.ts) reaches it through its decorator.
  dependencies: [
    'restock-problems',
    'restock-openapi',
    'restock-json-body',
    'restock-access-control',
    'restock-webhook-delivery',
  ],
});

async function serveWebhooks(app: FastifyInstance, options: WebhookRoutesOptions): Promise<void> {
  const context = webhookRouteContext(options);
  registerPaths(app, [...definitionPaths(context), ...secretPaths(context), ...deliveryPaths(context)]);
}
