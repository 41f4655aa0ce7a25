/**
 * The schemas of the webhooks' routes (src/http/routes/webhooks/), as components of the
 * document: a webhook as it is shown (never with a secret), one as made (its secret, shown
 * that once), a definition as sent, a kept delivery, a rotation's and a replay's answers.
 */
import { Type } from 'typebox';

const Time = (description: string) => Type.String({ format: 'date-time', description });
const Event = Type.Union([Type.Literal('created'), Type.Literal('updated'), Type.Literal('deleted')]);

const definitionFields = {
  url: Type.String({
    maxLength: 2048,
    description:
      'The http(s) address each delivery is POSTed to. Loopback and private addresses are refused unless ' +
      'WEBHOOKS_ALLOW_PRIVATE is true, here and again at every connection.',
    examples: ['https://example.com/hooks/restock'],
  }),
  collections: Type.Array(Type.String(), {
    minItems: 1,
    uniqueItems: true,
    description: 'The collections (plurals) whose changes it hears of.',
  }),
  events: Type.Array(Event, {
    minItems: 1,
    uniqueItems: true,
    description: 'Which changes: created, updated, deleted (all three when left out).',
  }),
  filter: Type.Union([Type.String(), Type.Null()], {
    description:
      "A list filter expression (as a list's `?filter=`), read for every collection it follows: a change is " +
      'sent when its record matches after it, or, for an update, matched before. null: every record.',
  }),
};

export const WebhookComponent = Type.Object(
  {
    id: Type.Integer({ minimum: 1 }),
    ...definitionFields,
    declared: Type.Boolean({ description: 'Whether the WEBHOOKS file declares it: then only the file changes it.' }),
    name: Type.Optional(Type.String({ description: "A declared webhook's name in the file." })),
    createdAt: Time('When it was made.'),
    updatedAt: Time('When its definition last changed.'),
    paused: Type.Union(
      [Type.Object({ at: Time('When it was paused.'), reason: Type.Union([Type.String(), Type.Null()]) }), Type.Null()],
      { description: 'null while it delivers; else when and why it stopped (PUT with `paused: false` resumes it).' },
    ),
    secretRotation: Type.Optional(
      Type.Object(
        { previousUntil: Time('Until when the replaced secret signs too.') },
        { description: 'While a rotated secret still signs beside the new one.' },
      ),
    ),
  },
  { description: 'A webhook. Its secret is never shown here: only when it is made and when it is rotated.' },
);

export const WebhookCreatedComponent = Type.Intersect([
  Type.Unsafe({ $ref: '#/components/schemas/Webhook' }),
  Type.Object({
    secret: Type.String({ description: 'The signing secret (`whsec_…`): shown this once, keep it.' }),
  }),
]);

export const WebhookDefinitionComponent = Type.Object(
  {
    ...definitionFields,
    events: Type.Optional(definitionFields.events),
    filter: Type.Optional(definitionFields.filter),
    secret: Type.Optional(
      Type.String({ description: 'A Standard Webhooks secret (`whsec_…`) to sign with; one is made when left out.' }),
    ),
  },
  { additionalProperties: false, description: 'A new webhook.' },
);

export const WebhookChangeComponent = Type.Object(
  {
    ...definitionFields,
    events: Type.Optional(definitionFields.events),
    filter: Type.Optional(definitionFields.filter),
    paused: Type.Optional(Type.Boolean({ description: 'true pauses the webhook, false resumes it.' })),
  },
  { additionalProperties: false, description: "A webhook's new definition (its secret is kept: rotate it apart)." },
);

export const WebhookSecretComponent = Type.Object({
  secret: Type.String({ description: 'The new signing secret (`whsec_…`): shown this once.' }),
  previousSecretUntil: Time('Until when the replaced secret signs beside it (WEBHOOKS_SECRET_OVERLAP_SECONDS).'),
});

export const WebhookDeliveryComponent = Type.Object(
  {
    messageId: Type.String({ description: 'Its `webhook-id` header: the same at every attempt and replay.' }),
    collection: Type.String(),
    seq: Type.Integer({ description: "The change's number in its collection's log." }),
    recordId: Type.Integer(),
    type: Type.String({ description: '`<collection>.<created|updated|deleted>`.', examples: ['orders.created'] }),
    state: Type.Union([
      Type.Literal('retrying'),
      Type.Literal('waiting'),
      Type.Literal('dead'),
      Type.Literal('delivered'),
    ]),
    attempts: Type.Integer({ minimum: 0 }),
    status: Type.Union([Type.Integer(), Type.Null()], { description: "The last answer's status; null for none." }),
    error: Type.Union([Type.String(), Type.Null()], { description: 'Why the last attempt failed.' }),
    occurredAt: Time('When the change was committed.'),
    firstAttemptAt: Time('When it was first sent.'),
    lastAttemptAt: Time('When it was last sent.'),
    nextAt: Type.Union([Time('When a retrying delivery is due.'), Type.Null()]),
    body: Type.Optional(Type.Unknown({ description: 'The JSON sent, with `?body=true`.' })),
  },
  { description: 'A kept delivery: retrying, waiting behind a retry of its record, dead, or recently delivered.' },
);

export const WebhookReplayComponent = Type.Object({
  replayed: Type.Union([Type.Literal('delivery'), Type.Literal('since')]),
  delivery: Type.Optional(Type.String({ description: 'The delivery sent again.' })),
  since: Type.Optional(Time('Every change committed since then is sent again.')),
});

export const WEBHOOK_COMPONENTS = {
  Webhook: WebhookComponent,
  WebhookCreated: WebhookCreatedComponent,
  WebhookDefinition: WebhookDefinitionComponent,
  WebhookChange: WebhookChangeComponent,
  WebhookSecret: WebhookSecretComponent,
  WebhookDelivery: WebhookDeliveryComponent,
  WebhookReplay: WebhookReplayComponent,
};
