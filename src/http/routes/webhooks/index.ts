/**
 * The webhooks' routes: what a write key manages them with (src/records/webhooks/ delivers
 * them). Webhooks reach outside, carry secrets and show every record they sent, so each of
 * these needs a write key, reads included (`writeKey`: an account's token or a read key gets
 * 403). After any change, `notify` tells the delivery engine, so that it acts now rather
 * than at its next look.
 */
import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import type { Catalog } from '../../../core/catalog.js';
import { recordIdOf } from '../../../core/record-id.js';
import type { DefinitionContext } from '../../../records/webhooks/webhook-definition.js';
import type { StoredWebhook, WebhookTables } from '../../../store/webhook-model.js';
import { registerPaths } from '../../paths.js';
import { HttpProblem } from '../../problem.js';
import { definitionPaths } from './definition-routes.js';
import { deliveryPaths } from './delivery-routes.js';
import { secretPaths } from './secret-route.js';

export interface WebhookRoutesOptions {
  webhooks: WebhookTables;
  catalog: Catalog;
  settings: {
    readonly webhooksAllowPrivate: boolean;
    readonly webhooksMax: number;
    readonly webhooksSecretOverlapSeconds: number;
    readonly maxFieldNameLength: number;
  };
  /** Called with a webhook's id after it is made, changed, paused, resumed, rotated, replayed or removed. */
  notify?: (id: number) => void;
  /** The clock (ms since the epoch); tests move it. */
  now?: () => number;
}

/** What each route file is given. */
export interface WebhookRouteContext {
  readonly webhooks: WebhookTables;
  readonly definitions: DefinitionContext;
  readonly settings: WebhookRoutesOptions['settings'];
  readonly notify: (id: number) => void;
  readonly now: () => number;
  /** The webhook `/webhook/{id}/` names; a 404 when there is none. */
  found(idText: string): Promise<StoredWebhook>;
  /** The webhook, when the API may change it; a 409 when the WEBHOOKS file declares it. */
  changeable(idText: string): Promise<StoredWebhook>;
}

export const webhookRoutes = fp(serveWebhooks, {
  name: 'restock-webhook-routes',
  fastify: '5.x',
  dependencies: ['restock-problems', 'restock-openapi', 'restock-json-body', 'restock-access-control'],
});

async function serveWebhooks(app: FastifyInstance, options: WebhookRoutesOptions): Promise<void> {
  const { webhooks, settings } = options;
  const found = async (idText: string) => {
    const id = recordIdOf(idText);
    const webhook = id === undefined ? undefined : await webhooks.get(id);
    if (!webhook) throw new HttpProblem('not-found', `No webhook ${JSON.stringify(idText)}.`);
    return webhook;
  };
  const context: WebhookRouteContext = {
    webhooks,
    settings,
    definitions: {
      catalog: options.catalog,
      allowPrivate: settings.webhooksAllowPrivate,
      maxFieldNameLength: settings.maxFieldNameLength,
    },
    notify: options.notify ?? (() => {}),
    now: options.now ?? Date.now,
    found,
    async changeable(idText) {
      const webhook = await found(idText);
      if (webhook.declaredAs !== null) {
        throw new HttpProblem(
          'webhook-declared',
          `Webhook ${webhook.id} is "${webhook.declaredAs}" of the WEBHOOKS file: change or remove it there.`,
        );
      }
      return webhook;
    },
  };
  registerPaths(app, [...definitionPaths(context), ...secretPaths(context), ...deliveryPaths(context)]);
}
