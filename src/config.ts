import { readFileSync } from 'node:fs';
import { isIP } from 'node:net';
import { type ParseArgsConfig, parseArgs } from 'node:util';
import { type ApiKey, duplicateKeys, parseApiKeys } from './http/auth.js';
import { type OverrideWireMethods, parseOverrideSetting } from './http/method-override.js';
import { RESOURCES } from './resources.js';
import type { IndexedField } from './store/store.js';

/** Everything the service can be told, resolved and typed. */
export interface Config {
  port: number;
  host: string;
  databaseUrl: string;
  databasePoolSize: number;
  databaseConnectTimeout: number;
  databaseStatementTimeout: number;
  workers: number;
  indexes: readonly IndexedField[];
  idempotencyKeyHours: number;
  schemas: string;
  logLevel: string;
  methodOverride: OverrideWireMethods;
  corsOrigin: string;
  bodyLimit: number;
  /** Largest record (its fields as compact JSON, in bytes) a change may leave; 413 above. */
  maxRecordBytes: number;
  /** Largest page of a list, in bytes: it stops before the record that would pass it. */
  maxPageBytes: number;
  maxDepth: number;
  maxFieldNameLength: number;
  apiKeys: readonly ApiKey[];
  apiKeysFile: readonly ApiKey[];
  publicReads: boolean;
  insecureNoAuth: boolean;
  trustProxy: string;
  rateLimitMax: number;
  rateLimitWindow: number;
  maxCostlyQueries: number;
  maxCostlyQueriesPerClient: number;
  redisUrl: string;
  headersTimeout: number;
  requestTimeout: number;
  keepAliveTimeout: number;
  maxEventLoopDelay: number;
}

interface Setting<K extends keyof Config> {
  key: K;
  env: string;
  flag: string;
  fallback: string;
  help: string;
  parse: (raw: string, name: string) => Config[K];
  /** A switch: its flag takes no value (`--public-reads`). */
  boolean?: true;
}

const integer =
  (min: number, max: number) =>
  (raw: string, name: string): number => {
    const value = Number(raw);
    if (!Number.isInteger(value) || value < min || value > max) {
      throw new ConfigError(`${name} must be an integer from ${min} to ${max}, got "${raw}"`);
    }
    return value;
  };

const text = (raw: string): string => raw;

const yesNo = (raw: string, name: string): boolean => {
  const value = raw.trim().toLowerCase();
  if (['true', '1', 'yes'].includes(value)) return true;
  if (['false', '0', 'no'].includes(value)) return false;
  throw new ConfigError(`${name} must be true or false, got "${raw}"`);
};

/** API keys from a setting's text; a mistake names the setting but never shows a key. */
const apiKeys = (raw: string, name: string): ApiKey[] => {
  try {
    return parseApiKeys(raw);
  } catch (error) {
    throw new ConfigError(`${name}: ${(error as Error).message}`);
  }
};

const apiKeysFile = (raw: string, name: string): ApiKey[] => {
  if (raw === '') return [];
  let text: string;
  try {
    text = readFileSync(raw, 'utf8');
  } catch (error) {
    throw new ConfigError(`${name}: cannot read ${raw} (${(error as NodeJS.ErrnoException).code ?? error})`);
  }
  return apiKeys(text, `${name} (${raw})`);
};

const redisUrl = (raw: string, name: string): string => {
  if (raw !== '' && !/^rediss?:\/\//.test(raw)) {
    throw new ConfigError(`${name} must be a redis:// or rediss:// URL`);
  }
  return raw;
};

const oneOf =
  (...allowed: string[]) =>
  (raw: string, name: string): string => {
    if (!allowed.includes(raw)) throw new ConfigError(`${name} must be one of ${allowed.join(', ')}, got "${raw}"`);
    return raw;
  };

/**
 * The single table of settings: each is read from a command-line flag, else an
 * environment variable, else its default. `--help` and the README are written from it.
 */
export const settings = [
  setting('port', 'PORT', 'port', '3000', 'TCP port to listen on', integer(0, 65535)),
  setting('host', 'HOST', 'host', '127.0.0.1', 'address to listen on', text),
  setting(
    'databaseUrl',
    'DATABASE_URL',
    'database-url',
    'sqlite:./data/restock.db',
    'store: sqlite:PATH, sqlite::memory: or postgres://USER@HOST:PORT/DB',
    text,
  ),
  setting(
    'databasePoolSize',
    'DATABASE_POOL_SIZE',
    'database-pool-size',
    '10',
    'PostgreSQL connections per process',
    integer(1, 1000),
  ),
  setting(
    'databaseConnectTimeout',
    'DATABASE_CONNECT_TIMEOUT',
    'database-connect-timeout',
    '5000',
    'milliseconds to wait for a PostgreSQL connection (503 after)',
    integer(1, 600_000),
  ),
  setting(
    'databaseStatementTimeout',
    'DATABASE_STATEMENT_TIMEOUT',
    'database-statement-timeout',
    '15000',
    'milliseconds a statement may run (503 after); on SQLite, the reads that may take long',
    integer(1, 3_600_000),
  ),
  setting('workers', 'WORKERS', 'workers', '1', 'processes serving the port on this machine', integer(1, 256)),
  setting(
    'indexes',
    'INDEXES',
    'indexes',
    'users:email;products:sku,price',
    'fields to index: collection:field,field;… (dotted for nested)',
    parseIndexes,
  ),
  setting(
    'schemas',
    'SCHEMAS',
    'schemas',
    '',
    'folder of JSON Schemas, one per collection (users.schema.json…); none: any object',
    text,
  ),
  setting(
    'idempotencyKeyHours',
    'IDEMPOTENCY_KEY_HOURS',
    'idempotency-key-hours',
    '24',
    'hours an Idempotency-Key is remembered (at least 24)',
    integer(24, 24 * 365),
  ),
  setting(
    'logLevel',
    'LOG_LEVEL',
    'log-level',
    'info',
    'fatal, error, warn, info, debug, trace or silent',
    oneOf('fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'),
  ),
  setting(
    'methodOverride',
    'METHOD_OVERRIDE',
    'method-override',
    'get,post',
    'wire methods that may carry HTTP-X-HTTP-METHOD: get,post, post or off',
    (raw, name) => {
      const parsed = parseOverrideSetting(raw);
      if (!parsed) throw new ConfigError(`${name} must be get,post, post or off, got "${raw}"`);
      return parsed;
    },
  ),
  setting('corsOrigin', 'CORS_ORIGIN', 'cors-origin', '*', 'allowed CORS origins: * or a comma list', text),
  setting(
    'bodyLimit',
    'BODY_LIMIT',
    'body-limit',
    '1048576',
    'largest request body in bytes (413 above)',
    integer(1, 2 ** 30),
  ),
  setting(
    'maxRecordBytes',
    'MAX_RECORD_BYTES',
    'max-record-bytes',
    'BODY_LIMIT',
    'largest record in bytes, its fields as compact JSON, a create or change may leave (413 above)',
    (raw, name) => (raw === 'BODY_LIMIT' ? 0 : integer(1, 2 ** 30)(raw, name)),
  ),
  setting(
    'maxPageBytes',
    'MAX_PAGE_BYTES',
    'max-page-bytes',
    '8388608',
    'largest list page in bytes: it ends before the record that would pass it (never fewer than one)',
    integer(1, 2 ** 29),
  ),
  setting('maxDepth', 'MAX_DEPTH', 'max-depth', '32', 'deepest nesting of a record (400 above)', integer(1, 1000)),
  setting(
    'maxFieldNameLength',
    'MAX_FIELD_NAME_LENGTH',
    'max-field-name-length',
    '200',
    'longest field name in a record (400 above)',
    integer(1, 100_000),
  ),
  setting(
    'apiKeys',
    'API_KEYS',
    'api-keys',
    '',
    'API keys, name:scope:key separated by commas; scope read or write',
    apiKeys,
  ),
  setting(
    'apiKeysFile',
    'API_KEYS_FILE',
    'api-keys-file',
    '',
    'a file of API keys, one name:scope:key per line',
    apiKeysFile,
  ),
  setting(
    'publicReads',
    'PUBLIC_READS',
    'public-reads',
    'false',
    'reads need no API key (writes and /metrics still do)',
    yesNo,
    true,
  ),
  setting(
    'insecureNoAuth',
    'INSECURE_NO_AUTH',
    'insecure-no-auth',
    'false',
    'serve a non-loopback HOST with no API keys (access controlled elsewhere)',
    yesNo,
    true,
  ),
  setting(
    'trustProxy',
    'TRUST_PROXY',
    'trust-proxy',
    '',
    'proxies whose X-Forwarded-For is believed: addresses or CIDRs, comma-separated',
    parseTrustedProxies,
  ),
  setting(
    'rateLimitMax',
    'RATE_LIMIT_MAX',
    'rate-limit-max',
    '1000',
    'requests per window per API key (per address without one); 0: no limit',
    integer(0, 1_000_000_000),
  ),
  setting(
    'rateLimitWindow',
    'RATE_LIMIT_WINDOW',
    'rate-limit-window',
    '60000',
    'milliseconds of the rate limit window',
    integer(1000, 86_400_000),
  ),
  setting(
    'maxCostlyQueries',
    'MAX_COSTLY_QUERIES',
    'max-costly-queries',
    '4',
    'costly list queries (filters, q=, sorts without an index, counts) running at once, all clients; 0: no cap',
    integer(0, 10_000),
  ),
  setting(
    'maxCostlyQueriesPerClient',
    'MAX_COSTLY_QUERIES_PER_CLIENT',
    'max-costly-queries-per-client',
    '2',
    'costly list queries one API key (or address) may have running at once; 0: no cap',
    integer(0, 10_000),
  ),
  setting(
    'redisUrl',
    'REDIS_URL',
    'redis-url',
    '',
    'Redis that keeps one rate limit budget for every instance',
    redisUrl,
  ),
  setting(
    'headersTimeout',
    'HEADERS_TIMEOUT',
    'headers-timeout',
    '10000',
    'milliseconds a client has to send its request headers (408 after)',
    integer(100, 600_000),
  ),
  setting(
    'requestTimeout',
    'REQUEST_TIMEOUT',
    'request-timeout',
    '30000',
    'milliseconds a client has to send its whole request (408 after)',
    integer(100, 3_600_000),
  ),
  setting(
    'keepAliveTimeout',
    'KEEP_ALIVE_TIMEOUT',
    'keep-alive-timeout',
    '72000',
    'milliseconds an idle keep-alive connection stays open',
    integer(100, 3_600_000),
  ),
  setting(
    'maxEventLoopDelay',
    'MAX_EVENT_LOOP_DELAY',
    'max-event-loop-delay',
    '1000',
    'mean event loop delay in ms above which requests get 503; 0: never',
    integer(0, 60_000),
  ),
] as const;

/** Checks what no single setting can: the settings that must agree with each other. */
function checkCombinations(config: Config): void {
  const duplicate = duplicateKeys([...config.apiKeys, ...config.apiKeysFile]);
  if (duplicate) throw new ConfigError(`API_KEYS and API_KEYS_FILE: ${duplicate}`);
  if (config.headersTimeout > config.requestTimeout) {
    throw new ConfigError(
      `HEADERS_TIMEOUT (${config.headersTimeout}) must not exceed REQUEST_TIMEOUT (${config.requestTimeout})`,
    );
  }
}

const PROXY_NAMES = new Set(['loopback', 'linklocal', 'uniquelocal']);

/**
 * Reads TRUST_PROXY: '' (trust no proxy), or a comma-separated list of addresses, CIDR
 * ranges and the names loopback, linklocal and uniquelocal, as Fastify's trustProxy takes it.
 */
function parseTrustedProxies(raw: string, name: string): string {
  for (const item of raw.split(',').map((part) => part.trim())) {
    if (raw.trim() === '' || PROXY_NAMES.has(item)) continue;
    const [address = '', prefix, extra] = item.split('/');
    const family = isIP(address);
    const prefixOk = prefix === undefined || (/^\d{1,3}$/.test(prefix) && Number(prefix) <= (family === 6 ? 128 : 32));
    if (family === 0 || !prefixOk || extra !== undefined) {
      throw new ConfigError(`${name}: "${item}" is not an address, a CIDR range, loopback, linklocal or uniquelocal`);
    }
  }
  return raw.trim();
}

/** Reads `users:email;products:sku,price,dimensions.weight`. */
function parseIndexes(raw: string, name: string): IndexedField[] {
  const known = RESOURCES.map((r) => r.plural);
  const fields: IndexedField[] = [];
  for (const group of raw.split(';').map((g) => g.trim())) {
    if (group === '') continue;
    const [collection = '', list = ''] = group.split(':', 2).map((part) => part.trim());
    if (!known.includes(collection)) {
      throw new ConfigError(`${name} names an unknown collection "${collection}" (known: ${known.join(', ')})`);
    }
    for (const field of list.split(',').map((f) => f.trim())) {
      const path = field.split('.');
      // Indexed paths are written into SQL literally (to match their index): plain names only.
      if (!path.every((segment) => /^[A-Za-z_][A-Za-z0-9_]{0,62}$/.test(segment))) {
        throw new ConfigError(`${name}: "${field}" is not a field path of letters, digits and _ (dotted for nested)`);
      }
      fields.push({ collection, path });
    }
  }
  return fields;
}

function setting<K extends keyof Config>(
  key: K,
  env: string,
  flag: string,
  fallback: string,
  help: string,
  parse: (raw: string, name: string) => Config[K],
  boolean?: true,
): Setting<K> {
  return { key, env, flag, fallback, help, parse, ...(boolean ? { boolean } : {}) };
}

/** A configuration mistake the operator must fix; printed as one line, never a stack. */
export class ConfigError extends Error {}

/** The configuration with every default applied: what tests start from. */
export function defaultConfig(overrides: Partial<Config> = {}): Config {
  const config = { ...resolve({}, {}), ...overrides };
  // As from the environment: MAX_RECORD_BYTES follows BODY_LIMIT unless it is given.
  return { ...config, maxRecordBytes: overrides.maxRecordBytes ?? config.bodyLimit };
}

/** What a command takes besides the settings: its own options and positional arguments. */
export interface CommandArguments {
  options?: NonNullable<ParseArgsConfig['options']>;
  positionals?: boolean;
}

/**
 * Reads flags (`--port 8080`) over environment variables over defaults. A command's own
 * options and positionals come back beside the configuration, parsed but not resolved.
 */
export function loadConfig(
  argv: string[],
  env: NodeJS.ProcessEnv,
  command: CommandArguments = {},
): { config: Config; help: boolean; options: Record<string, string | boolean | undefined>; positionals: string[] } {
  const own = command.options ?? {};
  const { values, positionals } = parseArgs({
    args: argv,
    strict: true,
    allowPositionals: command.positionals ?? false,
    options: {
      help: { type: 'boolean', short: 'h' },
      ...Object.fromEntries(
        settings.map((s: Setting<keyof Config>) => [
          s.flag,
          { type: s.boolean ? ('boolean' as const) : ('string' as const) },
        ]),
      ),
      ...own,
    },
  }).valueOf() as { values: Record<string, string | boolean | undefined>; positionals: string[] };
  // A switch (`--public-reads`) counts as the value "true".
  const flags = Object.fromEntries(
    Object.entries(values)
      .filter(([name, v]) => (typeof v === 'string' || (v === true && name !== 'help')) && !Object.hasOwn(own, name))
      .map(([name, v]) => [name, String(v)]),
  ) as Record<string, string>;
  const options = Object.fromEntries(Object.entries(values).filter(([name]) => Object.hasOwn(own, name)));
  return { config: resolve(flags, env), help: values.help === true, options, positionals };
}

function resolve(flags: Record<string, string>, env: NodeJS.ProcessEnv): Config {
  const config: Partial<Record<keyof Config, unknown>> = {};
  for (const s of settings) {
    const fromFlag = flags[s.flag];
    const fromEnv = env[s.env];
    const raw = fromFlag ?? (fromEnv !== undefined && fromEnv !== '' ? fromEnv : s.fallback);
    const name = fromFlag !== undefined ? `--${s.flag}` : s.env;
    config[s.key] = s.parse(raw, name);
  }
  // 0 stands for the default, BODY_LIMIT's value, which only now is known.
  if (config.maxRecordBytes === 0) config.maxRecordBytes = config.bodyLimit;
  checkCombinations(config as Config);
  return config as Config;
}

/** The text `restock serve --help` prints: every setting, with its variable and default. */
export function helpText(): string {
  return [
    'restock: a REST service for users and products',
    '',
    'Usage: restock [serve] [options]',
    '',
    ...settingsHelp(),
    '',
  ].join('\n');
}

/** The table of settings, as help text lines. */
export function settingsHelp(): string[] {
  const rows = settings.map(
    (s) => `  --${s.flag.padEnd(24)}${s.env.padEnd(24)}${s.help} (default: ${s.fallback === '' ? 'none' : s.fallback})`,
  );
  return [
    `  ${'flag'.padEnd(26)}${'environment'.padEnd(24)}meaning`,
    ...rows,
    `  --${'help'.padEnd(24)}${''.padEnd(24)}print this text`,
  ];
}
