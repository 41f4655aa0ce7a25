/**
 * A webhook's kept deliveries, newest first (`/webhook/{id}/deliveries/`), and replay
 * (`/webhook/{id}/replay/`): one kept delivery sent again, or every change since a time.
 * Declared webhooks are replayed too: replay changes what is sent, not the definition.
 */
import {
  DELIVERY_PAGE,
  DeliveriesQuery,
  WEBHOOK_DOCS,
  WebhookIdParams,
} from '../../../api/openapi/webhook-operations.js';
import type { DeliveryState } from '../../../store/webhook-model.js';
import type { PathEntry } from '../../paths.js';
import { objectBody } from '../../plugins/json-body.js';
import { HttpProblem } from '../../problem.js';
import { byId, WEBHOOK_POLICY, type WebhookRouteContext } from './webhook-context.js';
import { deliveryJson, webhookPath } from './webhook-json.js';

interface DeliveriesParams {
  state?: DeliveryState;
  limit: number;
  before?: string;
  body?: boolean;
}

export function deliveryPaths(context: WebhookRouteContext): PathEntry[] {
  return [
    {
      url: '/webhook/:id/deliveries/',
      policy: WEBHOOK_POLICY,
      operations: {
        GET: {
          ...byId(WEBHOOK_DOCS.deliveries, async (idText, request, reply) => {
            // The validator fills the default in; a caller that skips it gets the same.
            const query = { limit: DELIVERY_PAGE.default, ...(request.query as Partial<DeliveriesParams>) };
            const before = query.before === undefined ? undefined : timeOf(query.before, 'before', 'invalid-query');
            const { id } = await context.found(idText);
            const page = await context.webhooks.deliveries(id, {
              limit: query.limit,
              ...(query.state && { state: query.state }),
              ...(before !== undefined && { before }),
            });
            const last = page.at(-1);
            if (last && page.length === query.limit)
              reply.header('link', `<${nextPage(id, query, last.lastAttemptAt)}>; rel="next"`);
            return page.map((delivery) => deliveryJson(delivery, query.body === true));
          }),
          schema: { params: WebhookIdParams, querystring: DeliveriesQuery },
        },
      },
    },
    {
      url: '/webhook/:id/replay/',
      policy: WEBHOOK_POLICY,
      operations: {
        POST: byId(WEBHOOK_DOCS.replay, async (idText, request, reply) => {
          const { id } = await context.found(idText);
          const asked = replayOf(objectBody(request.body));
          const now = context.now();
          if ('delivery' in asked) {
            if (!(await context.webhooks.replay(id, asked.delivery, now))) {
              throw new HttpProblem('nothing-to-replay', `Webhook ${id} keeps no delivery "${asked.delivery}".`);
            }
            context.notify(id);
            return reply.code(202).send({ replayed: 'delivery', delivery: asked.delivery });
          }
          await context.webhooks.replaySince(id, asked.since, now);
          context.notify(id);
          return reply.code(202).send({ replayed: 'since', since: new Date(asked.since).toISOString() });
        }),
      },
    },
  ];
}

/** The next page's path: the same query, before the last delivery of this one. */
function nextPage(id: number, query: DeliveriesParams, lastAttemptAt: number): string {
  const next = new URLSearchParams();
  if (query.state) next.set('state', query.state);
  next.set('limit', String(query.limit));
  next.set('before', new Date(lastAttemptAt).toISOString());
  if (query.body) next.set('body', 'true');
  return `${webhookPath(id)}deliveries/?${next}`;
}

/** What a replay asks for: exactly one of `delivery` (a message id) and `since` (a time). */
function replayOf(body: Record<string, unknown>): { delivery: string } | { since: number } {
  const keys = Object.keys(body);
  if (keys.length !== 1 || (keys[0] !== 'delivery' && keys[0] !== 'since')) {
    throw new HttpProblem('bad-request', 'A replay names one of delivery (a messageId) and since (a time).', {
      errors: [{ pointer: '', message: 'must be {"delivery": "<messageId>"} or {"since": "<ISO time>"}' }],
    });
  }
  if (typeof body.delivery === 'string' && body.delivery !== '') return { delivery: body.delivery };
  if (body.since !== undefined) return { since: timeOf(body.since, 'since', 'bad-request') };
  throw new HttpProblem('bad-request', 'A replay’s delivery is the messageId of a kept delivery.', {
    errors: [{ pointer: '/delivery', message: 'must be a messageId' }],
  });
}

/** An ISO time (RFC 3339, with its offset) in ms since the epoch; a 400 naming `name` otherwise. */
function timeOf(value: unknown, name: string, kind: 'invalid-query' | 'bad-request'): number {
  const ms = typeof value === 'string' && /^\d{4}-\d\d-\d\dT\d\d:\d\d/.test(value) ? Date.parse(value) : Number.NaN;
  if (Number.isFinite(ms)) return ms;
  const message = 'must be a time such as 2026-01-31T12:00:00Z';
  throw new HttpProblem(kind, `The ${kind === 'invalid-query' ? 'query parameter ' : ''}${name} ${message}.`, {
    errors: [{ pointer: `/${name}`, message }],
  });
}
