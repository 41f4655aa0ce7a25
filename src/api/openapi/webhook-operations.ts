/**
 * What the OpenAPI document says of the webhooks' routes (src/http/routes/webhooks/): their
 * summaries, bodies, answers and refusals. Bodies are checked by the handlers (each fault
 * pointed at, src/records/webhooks/webhook-definition.ts); these schemas document them.
 */
import type { FastifySchema } from 'fastify';
import { Type } from 'typebox';
import type { ProblemKind } from '../problem-types.js';
import {
  componentRef,
  emptyResponse,
  jsonResponse,
  problemResponses,
  ResponseHeaders,
  requestHeaders,
} from './responses.js';

export const WEBHOOKS_TAG = 'webhooks';

const JSON_BODIES = ['application/json', 'application/*+json'];
const tags = [WEBHOOKS_TAG];

/** The refusals a body's route can end in, beside its own. */
const withBody = (kinds: readonly ProblemKind[]) =>
  problemResponses(['malformed-json', 'payload-too-large', 'unsupported-media-type', ...kinds, 'method-not-allowed']);
const noBody = (kinds: readonly ProblemKind[]) => problemResponses([...kinds, 'method-not-allowed']);

export const WebhookIdParams = Type.Object({
  id: Type.String({ description: "The webhook's id, a positive integer.", examples: ['1'] }),
});

/** The id as the document types it (Fastify reads it as text: any other text names no webhook, 404). */
const IdPath = Type.Object({
  id: Type.Integer({
    minimum: 1,
    maximum: Number.MAX_SAFE_INTEGER,
    description: "The webhook's id, in decimal without a sign or leading zeros.",
    examples: [1],
  }),
});

export const DELIVERY_PAGE = { default: 50, max: 500 };

export const DeliveriesQuery = Type.Object({
  state: Type.Optional(
    Type.Union([Type.Literal('retrying'), Type.Literal('waiting'), Type.Literal('dead'), Type.Literal('delivered')], {
      description: 'Only the deliveries in this state.',
    }),
  ),
  limit: Type.Optional(
    Type.Integer({
      minimum: 1,
      maximum: DELIVERY_PAGE.max,
      default: DELIVERY_PAGE.default,
      description: 'The most deliveries in the page.',
    }),
  ),
  before: Type.Optional(
    Type.String({
      format: 'date-time',
      description: 'Only deliveries last attempted before this time: the next page, as the `Link` header gives it.',
    }),
  ),
  body: Type.Optional(Type.Boolean({ description: 'true: each delivery with the JSON body it was sent with.' })),
});

const ReplayBody = Type.Union([
  Type.Object(
    { delivery: Type.String({ description: 'A kept delivery’s messageId.' }) },
    { additionalProperties: false },
  ),
  Type.Object(
    { since: Type.String({ format: 'date-time', description: 'Every change committed since this time.' }) },
    { additionalProperties: false },
  ),
]);

const webhook = componentRef('Webhook');
const declared =
  'A webhook declared in the WEBHOOKS file is changed there only: this answers 409 (`webhook-declared`).';

type WebhookOperation =
  | 'list'
  | 'create'
  | 'createAtSingular'
  | 'get'
  | 'replace'
  | 'remove'
  | 'rotate'
  | 'deliveries'
  | 'replay';

const create = (operationId: string, where: string): FastifySchema => ({
  tags,
  summary: 'Make a webhook',
  operationId,
  description:
    'Its deliveries start with the changes committed after it is made. The answer holds its signing secret, ' +
    `which is never shown again (rotating gives a new one).${where} WEBHOOKS_MAX caps the webhooks, declared ones ` +
    'included.',
  headers: requestHeaders(),
  consumes: JSON_BODIES,
  body: componentRef('WebhookDefinition'),
  response: {
    201: jsonResponse('The webhook, with its secret.', componentRef('WebhookCreated'), {
      Location: Type.String({ description: "The webhook's path." }),
    }),
    ...withBody(['invalid-webhook', 'webhook-address-refused', 'too-many-webhooks']),
  },
});

const docs: Record<WebhookOperation, FastifySchema> = {
  list: {
    tags,
    summary: 'List the webhooks',
    operationId: 'listWebhooks',
    description: 'Every webhook, declared in the WEBHOOKS file or made through the API, by id; never a secret.',
    response: { 200: jsonResponse('The webhooks.', Type.Array(webhook)), ...noBody([]) },
  },
  create: create('createWebhook', ''),
  createAtSingular: create('createWebhookAtSingular', ' The same as `POST /webhooks/`.'),
  get: {
    tags,
    summary: 'Read a webhook',
    operationId: 'getWebhook',
    params: IdPath,
    description:
      'Its definition, whether it is paused and why, and while a rotated secret still signs; never a secret.',
    response: { 200: jsonResponse('The webhook.', webhook), ...noBody(['not-found']) },
  },
  replace: {
    tags,
    summary: "Replace a webhook's definition, or pause or resume it",
    operationId: 'replaceWebhook',
    params: IdPath,
    description:
      'The url, collections, events and filter are replaced as sent (events and filter left out: all events, ' +
      'no filter); a collection it did not follow before starts with the changes committed after. `paused` ' +
      `pauses (true) or resumes (false) it; its secret stays. ${declared}`,
    headers: requestHeaders(),
    consumes: JSON_BODIES,
    body: componentRef('WebhookChange'),
    response: {
      200: jsonResponse('The webhook as it is now.', webhook),
      ...withBody(['not-found', 'webhook-declared', 'invalid-webhook', 'webhook-address-refused']),
    },
  },
  remove: {
    tags,
    summary: 'Remove a webhook',
    operationId: 'deleteWebhook',
    params: IdPath,
    description: `Its kept deliveries go with it. ${declared}`,
    headers: requestHeaders(),
    response: { 204: emptyResponse('Removed.'), ...noBody(['not-found', 'webhook-declared']) },
  },
  rotate: {
    tags,
    summary: "Rotate a webhook's secret",
    operationId: 'rotateWebhookSecret',
    params: IdPath,
    description:
      'A new secret signs from now on; the one it replaces signs beside it (two signatures in `webhook-signature`) ' +
      `for WEBHOOKS_SECRET_OVERLAP_SECONDS, so that receivers can change over. ${declared}`,
    headers: requestHeaders(),
    response: {
      200: jsonResponse('The new secret, shown this once.', componentRef('WebhookSecret')),
      ...noBody(['not-found', 'webhook-declared']),
    },
  },
  deliveries: {
    tags,
    summary: "List a webhook's kept deliveries",
    operationId: 'listWebhookDeliveries',
    params: IdPath,
    description:
      'Newest (last attempted) first: those retrying, those waiting behind a retry of the same record, the dead ' +
      'letters (kept WEBHOOKS_DEAD_LETTER_HOURS) and the most recent successes.',
    querystring: DeliveriesQuery,
    response: {
      200: jsonResponse('A page of deliveries.', Type.Array(componentRef('WebhookDelivery')), {
        Link: ResponseHeaders.link,
      }),
      ...noBody(['not-found', 'invalid-query']),
    },
  },
  replay: {
    tags,
    summary: 'Send deliveries again',
    operationId: 'replayWebhook',
    params: IdPath,
    description:
      '`{"delivery": messageId}` sends one kept delivery again (a dead letter, say), with its attempts from zero; ' +
      '`{"since": time}` sends again every change committed since then that the change log still holds. Either ' +
      'resumes a paused webhook. Receivers drop duplicates by `webhook-id`, the same as the first time. Declared ' +
      'webhooks may be replayed too.',
    headers: requestHeaders(),
    consumes: JSON_BODIES,
    body: ReplayBody,
    response: {
      202: jsonResponse('Replaying.', componentRef('WebhookReplay')),
      ...withBody(['not-found', 'nothing-to-replay']),
    },
  },
};

/**
 * Each operation's docs as plain JSON of its own: an object met twice in the document (a
 * shared tag list, the id's schema) is written as a YAML alias in /openapi.yaml, and YAML
 * readers refuse a document past a hundred of them.
 */
export const WEBHOOK_DOCS = Object.fromEntries(
  Object.entries(docs).map(([name, schema]) => [name, JSON.parse(JSON.stringify(schema)) as FastifySchema]),
) as Record<WebhookOperation, FastifySchema>;
