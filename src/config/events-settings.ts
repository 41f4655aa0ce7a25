/** The settings of the change feeds, declared in their place among ./settings.ts's. */
import { integer, seconds } from './parsers.js';
import type { Setting } from './setting.js';

export const EVENTS_SETTINGS = {
  eventsRetentionHours: {
    default: '24',
    parse: integer(1, 24 * 365),
    group: 'server',
    help: 'hours the change log keeps each change; a feed resumed from an older one starts with a `reset` event',
  },
  eventsHeartbeatSeconds: {
    default: '15',
    parse: seconds(0.01, 3600),
    group: 'server',
    help: 'seconds between the comments a change feed sends while quiet, so that proxies keep it open (fractions allowed); a client that leaves what it was sent unread for two of them is cut off',
  },
  eventsMaxFeeds: {
    default: '1000',
    parse: integer(0, 1_000_000),
    group: 'server',
    help: 'change feeds open at once in this process (`503` past it); `0`: no cap',
  },
  eventsMaxFeedsPerClient: {
    default: '50',
    parse: integer(0, 1_000_000),
    group: 'server',
    help: 'change feeds one API key, account or client address may have open at once (`429` past it); one address, whatever accounts it signs in with, at most a quarter of `EVENTS_MAX_FEEDS` and no less than this; `0`: no cap per client or per address',
  },
} satisfies Record<string, Setting<unknown>>;
