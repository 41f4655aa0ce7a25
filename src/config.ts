import { type ParseArgsConfig, parseArgs } from 'node:util';
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
  maxDepth: number;
  maxFieldNameLength: number;
}

interface Setting<K extends keyof Config> {
  key: K;
  env: string;
  flag: string;
  fallback: string;
  help: string;
  parse: (raw: string, name: string) => Config[K];
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
    'milliseconds a PostgreSQL statement may run (503 after)',
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
  setting('maxDepth', 'MAX_DEPTH', 'max-depth', '32', 'deepest nesting of a record (400 above)', integer(1, 1000)),
  setting(
    'maxFieldNameLength',
    'MAX_FIELD_NAME_LENGTH',
    'max-field-name-length',
    '200',
    'longest field name in a record (400 above)',
    integer(1, 100_000),
  ),
] as const;

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
): Setting<K> {
  return { key, env, flag, fallback, help, parse };
}

/** A configuration mistake the operator must fix; printed as one line, never a stack. */
export class ConfigError extends Error {}

/** The configuration with every default applied: what tests start from. */
export function defaultConfig(overrides: Partial<Config> = {}): Config {
  return { ...resolve({}, {}), ...overrides };
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
      ...Object.fromEntries(settings.map((s) => [s.flag, { type: 'string' as const }])),
      ...own,
    },
  }).valueOf() as { values: Record<string, string | boolean | undefined>; positionals: string[] };
  const flags = Object.fromEntries(
    Object.entries(values).filter(([name, v]) => typeof v === 'string' && !Object.hasOwn(own, name)),
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
