/**
 * The settings of webhooks (src/records/webhooks/), declared in their place among
 * ./settings.ts's: where declared webhooks come from, which addresses they may reach, how
 * long and how hard a failing one is retried, and how much delivery may be under way at once.
 */
import { integer, seconds, text, yesNo } from './parsers.js';
import type { Setting } from './setting.js';

export const WEBHOOK_SETTINGS = {
  webhooks: {
    default: '',
    parse: text,
    group: 'server',
    help: 'a JSON file of declared webhooks, an array of `{name, url, collections, events, filter?, secret}`, checked at start (see [Webhooks](api.md#webhooks)); they are kept as the file says, and changed only there',
  },
  webhooksAllowPrivate: {
    default: 'false',
    parse: yesNo,
    switch: true,
    group: 'server',
    help: '`true`: webhooks may reach loopback and private addresses (`127.0.0.1`, `10.0.0.0/8`, `fd00::/8`…), which are refused otherwise, when a webhook is made and again at every connection',
  },
  webhooksRetrySeconds: {
    default: '28800',
    parse: seconds(0.01, 365 * 86_400),
    group: 'server',
    help: 'how long a failed delivery is retried (with exponential backoff and jitter) before it becomes a dead letter; a webhook whose every delivery failed for this long is paused. Less than `EVENTS_RETENTION_HOURS`, so that what a paused webhook holds back is still in the log when it resumes',
  },
  webhooksBackoffSeconds: {
    default: '5',
    parse: seconds(0.01, 3600),
    group: 'server',
    help: 'the wait before a failed delivery’s first retry; each next wait is about twice the last (jittered), up to an hour',
  },
  webhooksTimeoutSeconds: {
    default: '15',
    parse: seconds(0.01, 300),
    group: 'server',
    help: 'the longest a delivery may take, from connecting to the end of its answer; past it the delivery failed',
  },
  webhooksConnectTimeoutSeconds: {
    default: '5',
    parse: seconds(0.01, 300),
    group: 'server',
    help: 'the longest a delivery may take to connect (DNS and TCP and TLS)',
  },
  webhooksInFlight: {
    default: '256',
    parse: integer(1, 100_000),
    group: 'server',
    help: 'deliveries under way at once in this process, across webhooks',
  },
  webhooksInFlightPerWebhook: {
    default: '64',
    parse: integer(1, 10_000),
    group: 'server',
    help: 'deliveries under way at once to one webhook (changes of one record always go one after another), so that a slow endpoint holds no more than this',
  },
  webhooksLeaseSeconds: {
    default: '60',
    parse: seconds(1, 3600),
    group: 'server',
    help: 'how long an instance holds a webhook it delivers (renewed while it runs); one that dies is taken over by another this long after',
  },
  webhooksMaxBodyBytes: {
    default: '262144',
    parse: integer(1024, 64 * 1024 * 1024),
    group: 'server',
    help: 'the largest delivery body; past it the previous version is left out, then the record is cut to its id and version, and the body says `"truncated": true`',
  },
  webhooksSecretOverlapSeconds: {
    default: '86400',
    parse: seconds(0, 365 * 86_400),
    group: 'server',
    help: 'how long a rotated webhook secret keeps signing beside the new one, so that receivers can change over',
  },
  webhooksDeadLetterHours: {
    default: '168',
    parse: integer(1, 24 * 365),
    group: 'server',
    help: 'hours a dead letter is kept for reading and replay',
  },
  webhooksMax: {
    default: '100',
    parse: integer(0, 10_000),
    group: 'server',
    help: 'the most webhooks, declared and made through the API together',
  },
} satisfies Record<string, Setting<unknown>>;
