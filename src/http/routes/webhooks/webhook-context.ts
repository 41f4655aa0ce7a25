/**
 * What every webhook route is given: the store's tables, how definitions are checked, the
 * settings, whom to tell of a change, the clock, and the lookups that answer 404 and 409.
 */
import type { FastifyReply, FastifyRequest, FastifySchema } from 'fastify';
import { WebhookIdParams } from '../../../api/openapi/webhook-operations.js';
import type { Catalog } from '../../../core/catalog.js';
import { recordIdOf } from '../../../core/record-id.js';
import type { DefinitionContext } from '../../../records/webhooks/webhook-definition.js';
import type { StoredWebhook, WebhookTables } from '../../../store/webhook-model.js';
import type { Operation } from '../../paths.js';
import { HttpProblem } from '../../problem.js';

/** What every webhook route asks of its caller (src/http/route-policy.ts). */
export const WEBHOOK_POLICY = { writeKey: true } as const;

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

/** The context of `options`' routes. */
export function webhookRouteContext(options: WebhookRoutesOptions): WebhookRouteContext {
  const { webhooks, settings } = options;
  const found = async (idText: string) => {
    const id = recordIdOf(idText);
    const webhook = id === undefined ? undefined : await webhooks.get(id);
    if (!webhook) throw new HttpProblem('not-found', `No webhook ${JSON.stringify(idText)}.`);
    return webhook;
  };
  return {
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
}

/** An operation on one webhook (`/webhook/{id}/…`): `handle` gets the id as the path wrote it. */
export function byId(
  docs: FastifySchema,
  handle: (idText: string, request: FastifyRequest, reply: FastifyReply) => Promise<unknown>,
): Operation {
  return {
    schema: { params: WebhookIdParams },
    docs,
    handler: (request, reply) => handle((request.params as { id: string }).id, request, reply),
  };
}
