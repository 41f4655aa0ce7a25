/**
 * The kinds of problem the webhooks' routes answer with: part of ./problem-types.ts's catalog.
 */
export const WEBHOOK_PROBLEM_TYPES = {
  'invalid-webhook': {
    status: 422,
    title: 'Invalid webhook',
    description:
      "A webhook's definition is wrong: a collection that does not exist, events other than created, updated " +
      'and deleted, a filter that does not read for every collection it follows, a malformed secret, or a field ' +
      'a webhook does not have. `errors` points at each.',
  },
  'webhook-address-refused': {
    status: 422,
    title: 'Webhook address refused',
    description:
      "A webhook's url is not http(s), carries credentials, or names a loopback, private or otherwise " +
      'non-public address, which the server refuses unless WEBHOOKS_ALLOW_PRIVATE is true.',
  },
  'webhook-declared': {
    status: 409,
    title: 'Webhook declared in a file',
    description: 'The webhook comes from the WEBHOOKS file: it is changed or removed there, not through the API.',
  },
  'too-many-webhooks': {
    status: 409,
    title: 'Too many webhooks',
    description: 'There are already WEBHOOKS_MAX webhooks; remove one first.',
  },
  'nothing-to-replay': {
    status: 404,
    title: 'Nothing to replay',
    description: 'The webhook keeps no delivery with that id (delivered ones are kept only while recent).',
  },
} as const;
