/**
 * `POST /webhook/{id}/secret/`: a new signing secret, shown in this answer only. The one it
 * replaces keeps signing beside it for WEBHOOKS_SECRET_OVERLAP_SECONDS, so that receivers
 * can take the new one without dropping a delivery.
 */
import { WEBHOOK_DOCS } from '../../../api/openapi/webhook-operations.js';
import { newWebhookSecret } from '../../../records/webhooks/webhook-secret.js';
import type { PathEntry } from '../../paths.js';
import { HttpProblem } from '../../problem.js';
import { byId, WEBHOOK_POLICY, type WebhookRouteContext } from './webhook-context.js';

export function secretPaths(context: WebhookRouteContext): PathEntry[] {
  return [
    {
      url: '/webhook/:id/secret/',
      policy: WEBHOOK_POLICY,
      operations: {
        POST: byId(WEBHOOK_DOCS.rotate, async (idText, _request, reply) => {
          const { id } = await context.changeable(idText);
          const secret = newWebhookSecret();
          const now = context.now();
          const previousUntil = now + Math.round(context.settings.webhooksSecretOverlapSeconds * 1000);
          const rotated = await context.webhooks.rotateSecret(id, secret, previousUntil, now);
          if (!rotated) throw new HttpProblem('not-found', `No webhook ${id}: it was removed meanwhile.`);
          context.notify(id);
          return reply
            .header('cache-control', 'no-store')
            .send({ secret, previousSecretUntil: new Date(previousUntil).toISOString() });
        }),
      },
    },
  ];
}
