/**
 * Every setting, declared once: its default, how its text is read, and what it does. The
 * Config type, the environment variables and flags, `--help` and the table of settings in
 * docs/configuration.md (scripts/settings-table.ts) are all derived from this object.
 */
import { apiKeysSetting } from './api-keys.js';
import { AUTH_SETTINGS } from './auth-settings.js';
import { DATABASE_SETTINGS } from './database-settings.js';
import { EVENTS_SETTINGS } from './events-settings.js';
import { FILE_SETTINGS } from './file-settings.js';
import { LIMIT_SETTINGS } from './limit-settings.js';
import { MAIL_SETTINGS } from './mail-settings.js';
import { type NamedSetting, nameSettings } from './names.js';
import {
  indexes,
  integer,
  methodOverride,
  oneOf,
  publicUrl,
  redisUrl,
  text,
  trustedProxies,
  yesNo,
} from './parsers.js';
import { PROVIDER_SETTINGS } from './provider-settings.js';
import type { Setting } from './setting.js';
import { WEBHOOK_SETTINGS } from './webhook-settings.js';

export const SETTINGS = {
  port: { default: '3000', parse: integer(0, 65535), group: 'server', help: 'TCP port to listen on' },
  host: { default: '127.0.0.1', parse: text, group: 'server', help: 'address to listen on' },
  ...DATABASE_SETTINGS,
  ...FILE_SETTINGS,
  workers: {
    default: '1',
    parse: integer(1, 256),
    group: 'server',
    help: 'processes serving the port on this machine (node:cluster), on either store',
  },
  indexes: {
    default: '',
    parse: indexes,
    group: 'database',
    help: "more fields to index, `collection:field,field;…` (dotted for nested fields), beside users.email, products.sku and products.price; with SCHEMAS, deprecated for each schema's `x-index`",
  },
  searchIndex: {
    default: 'true',
    parse: yesNo,
    group: 'database',
    help: 'keep a trigram index for `q=` search, made on start; `false` drops it, which spares every write its upkeep, and `q=` then reads every record',
  },
  schemas: {
    default: '',
    parse: text,
    group: 'database',
    help: 'a folder of JSON Schemas, each `<plural>.schema.json` declaring a collection (see [Collection schemas](api.md#collection-schemas)); none: users and products, any object',
  },
  idempotencyKeyHours: {
    default: '24',
    parse: integer(24, 24 * 365),
    group: 'server',
    help: 'hours an `Idempotency-Key` is remembered (at least 24)',
  },
  ...EVENTS_SETTINGS,
  ...AUTH_SETTINGS,
  ...MAIL_SETTINGS,
  ...PROVIDER_SETTINGS,
  ...WEBHOOK_SETTINGS,
  logLevel: {
    default: 'info',
    parse: oneOf('fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'),
    group: 'server',
    help: '`fatal`, `error`, `warn`, `info`, `debug`, `trace` or `silent`',
  },
  methodOverride: {
    default: 'get,post',
    parse: methodOverride,
    group: 'server',
    help: 'wire methods that may carry the override header: `get,post`, `post` or `off`',
  },
  corsOrigin: {
    default: '*',
    parse: text,
    group: 'server',
    help: 'origins allowed by CORS: `*` or a comma-separated list',
  },
  ...LIMIT_SETTINGS,
  apiKeys: {
    default: '',
    parse: apiKeysSetting,
    group: 'server',
    help: 'API keys, `name:scope:key` separated by commas (`shop:read:change-me-shop-key`); scope `read` or `write`; a key is 16 or more letters, digits or `-._~+/` (see [Access control](api.md#access-control))',
  },
  apiKeysFile: {
    // Its keys join API_KEYS's in `apiKeys` (load.ts); the path stays here for messages.
    default: '',
    parse: text,
    group: 'server',
    help: 'a file of API keys, one `name:scope:key` per line (`#` comments; `sha256:HEX` in place of the key)',
  },
  publicReads: {
    default: 'false',
    parse: yesNo,
    switch: true,
    group: 'server',
    help: '`true`: `GET`, `HEAD` and `OPTIONS` need no key (writes and `/metrics` still do)',
  },
  insecureNoAuth: {
    default: 'false',
    parse: yesNo,
    switch: true,
    group: 'server',
    help: '`true`: serve a non-loopback `HOST` with no API keys (only if something in front controls access)',
  },
  trustProxy: {
    default: '',
    parse: trustedProxies,
    group: 'server',
    help: 'proxies whose `X-Forwarded-For` is believed: addresses or CIDRs, comma-separated (or `loopback`)',
  },
  publicUrl: {
    default: '',
    parse: publicUrl,
    group: 'server',
    help: "where clients reach the service (`https://api.example.com`), as the OpenAPI document's server; none: each request's own origin (with `X-Forwarded-Proto` and `X-Forwarded-Host` from `TRUST_PROXY`'s proxies)",
  },
  rateLimitMax: {
    default: '1000',
    parse: integer(0, 1_000_000_000),
    group: 'server',
    help: 'requests per window per API key, per account, and per client address (requests with an account’s token spend both, requests without a valid credential the address’s); `0`: no limit',
  },
  rateLimitWindow: {
    default: '60000',
    parse: integer(1000, 86_400_000),
    group: 'server',
    help: 'milliseconds of the rate limit window',
  },
  maxCostlyQueries: {
    default: '4',
    parse: integer(0, 10_000),
    group: 'server',
    help: 'costly list queries (whose plan reads rows they do not return: scans, `q=`, sorts without an index, counts) running at once in this process; `0`: no cap',
  },
  maxCostlyQueriesPerClient: {
    default: '2',
    parse: integer(0, 10_000),
    group: 'server',
    help: 'costly list queries one API key, account or client address may have running at once (`429` past it); one address, whatever accounts it signs in with, at most a quarter of `MAX_COSTLY_QUERIES` and no less than this; `0`: no cap per client or per address',
  },
  redisUrl: {
    default: '',
    parse: redisUrl,
    group: 'server',
    help: '`redis://…`: keep the rate limit budgets, failed sign-ins and the counts of reset and verification mails asked for in Redis, shared by every instance',
  },
  headersTimeout: {
    default: '10000',
    parse: integer(100, 600_000),
    group: 'server',
    help: 'milliseconds a client has to send its request headers (`408` after)',
  },
  requestTimeout: {
    default: '30000',
    parse: integer(100, 3_600_000),
    group: 'server',
    help: 'milliseconds a client has to send its whole request, body included (`408` after)',
  },
  maxConnections: {
    default: 'auto',
    parse: (raw, name) => (raw === 'auto' ? 0 : integer(1, 10_000_000)(raw, name)),
    group: 'server',
    help: 'connections open at once; one past it is closed as it arrives. `auto`: the open file limit less 128, which the store, logs and workers keep',
  },
  keepAliveTimeout: {
    default: '72000',
    parse: integer(100, 3_600_000),
    group: 'server',
    help: 'milliseconds an idle keep-alive connection stays open',
  },
  shutdownTimeout: {
    default: '10000',
    parse: integer(0, 3_600_000),
    group: 'server',
    help: 'milliseconds a shutdown waits for responses in flight before it closes their connections',
  },
  maxEventLoopDelay: {
    default: '1000',
    parse: integer(0, 60_000),
    group: 'server',
    help: 'mean event loop delay (ms) above which requests get `503`; `0`: never',
  },
} satisfies Record<string, Setting<unknown>>;

type Settings = typeof SETTINGS;

/**
 * Everything the service can be told, resolved and typed: one field per setting. `apiKeys`
 * holds every key, API_KEYS's and then API_KEYS_FILE's; `apiKeysFile` is the file's path.
 */
export type Config = { -readonly [K in keyof Settings]: ReturnType<Settings[K]['parse']> };

/** Every setting in the order of the declaration, with its names: as --help and docs/configuration.md list them. */
export const SETTING_LIST: readonly NamedSetting<keyof Config>[] = nameSettings(SETTINGS);
