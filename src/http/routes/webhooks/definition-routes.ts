/**
 * Webhooks made, read, replaced and removed: `/webhooks/` (list, create), `/webhook/`
 * (create, as each collection takes one at its singular) and `/webhook/{id}/`. A new
 * webhook's secret is in the answer that makes it, and nowhere after.
 */
import { WEBHOOK_DOCS } from '../../../api/openapi/webhook-operations.js';
import { Refusal } from '../../../records/refusal.js';
import { definitionOrRefusal } from '../../../records/webhooks/webhook-definition.js';
import { newWebhookSecret } from '../../../records/webhooks/webhook-secret.js';
import type { StoredWebhook } from '../../../store/webhook-model.js';
import type { Operation, PathEntry } from '../../paths.js';
import { objectBody } from '../../plugins/json-body.js';
import { HttpProblem } from '../../problem.js';
import { byId, WEBHOOK_POLICY, type WebhookRouteContext } from './webhook-context.js';
import { webhookJson, webhookPath } from './webhook-json.js';

/** Why a webhook paused through the API says it was. */
export const PAUSED_BY_KEY = 'paused through the API';

export function definitionPaths(context: WebhookRouteContext): PathEntry[] {
  return [
    {
      url: '/webhooks/',
      policy: WEBHOOK_POLICY,
      operations: {
        GET: {
          docs: WEBHOOK_DOCS.list,
          async handler() {
            const now = context.now();
            return (await context.webhooks.list()).map((webhook) => webhookJson(webhook, now));
          },
        },
        POST: createOperation(context, WEBHOOK_DOCS.create),
      },
    },
    {
      url: '/webhook/',
      policy: WEBHOOK_POLICY,
      operations: { POST: createOperation(context, WEBHOOK_DOCS.createAtSingular) },
    },
    {
      url: '/webhook/:id/',
      policy: WEBHOOK_POLICY,
      operations: {
        GET: byId(WEBHOOK_DOCS.get, async (idText) => webhookJson(await context.found(idText), context.now())),
        PUT: replaceOperation(context),
        DELETE: byId(WEBHOOK_DOCS.remove, async (idText, _request, reply) => {
          const { id } = await context.changeable(idText);
          await context.webhooks.remove(id);
          context.notify(id);
          return reply.code(204).send();
        }),
      },
    },
  ];
}

function createOperation(context: WebhookRouteContext, docs: Operation['docs']): Operation {
  return {
    docs,
    async handler(request, reply) {
      const { spec, secret: given } = definitionOrRefusal(objectBody(request.body), context.definitions);
      const { webhooksMax } = context.settings;
      if ((await context.webhooks.count()) >= webhooksMax) {
        throw new HttpProblem(
          'too-many-webhooks',
          `There are already ${webhooksMax} webhooks (WEBHOOKS_MAX, declared ones included); nothing was made.`,
        );
      }
      const secret = given ?? newWebhookSecret();
      const now = context.now();
      const webhook = await context.webhooks.create({ ...spec, secret }, now);
      context.notify(webhook.id);
      return reply
        .code(201)
        .header('location', webhookPath(webhook.id))
        .header('cache-control', 'no-store')
        .send({ ...webhookJson(webhook, now), secret });
    },
  };
}

/** PUT: the definition replaced as sent; `paused` pauses or resumes it too. */
function replaceOperation(context: WebhookRouteContext): Operation {
  return byId(WEBHOOK_DOCS.replace, async (idText, request) => {
    const current = await context.changeable(idText);
    const body = objectBody(request.body);
    // A PUT keeps the secret: it is rotated through its own route, which shows the new one.
    const { spec } = definitionOrRefusal(body, context.definitions, CHANGE_FIELDS);
    const { paused } = body;
    if (paused !== undefined && typeof paused !== 'boolean') {
      throw new Refusal('invalid-webhook', 'The webhook’s paused must be true or false; nothing was changed.', {
        errors: [{ pointer: '/paused', message: 'must be true or false' }],
      });
    }
    const now = context.now();
    let webhook: StoredWebhook | undefined = await context.webhooks.update(current.id, spec, now);
    if (webhook && paused !== undefined && paused !== (webhook.pausedAt !== null)) {
      webhook = await context.webhooks.pause(current.id, paused ? PAUSED_BY_KEY : null, now);
    }
    if (!webhook) throw new HttpProblem('not-found', `No webhook ${current.id}: it was removed meanwhile.`);
    context.notify(webhook.id);
    return webhookJson(webhook, now);
  });
}

const CHANGE_FIELDS = ['url', 'collections', 'events', 'filter', 'paused'];
