/**
 * Reading the settings: each from its flag, else its environment variable, else its
 * default (./settings.ts), then the rules that tie settings together.
 */
import { type ParseArgsConfig, parseArgs } from 'node:util';
import { ConfigError } from '../core/config-error.js';
import { apiKeysFromFile, duplicateKeys } from './api-keys.js';
import { withEnvFiles } from './env-file.js';
import { refuseMisspeltVariables } from './misspelt-variables.js';
import { nearest } from './nearest.js';
import { type Config, SETTING_LIST } from './settings.js';

type Options = NonNullable<ParseArgsConfig['options']>;

/** What a command takes besides the settings: its own options and positional arguments. */
export interface CommandArguments {
  options?: Options;
  positionals?: boolean;
}

export interface LoadedArguments {
  config: Config;
  help: boolean;
  /** The command's own options, parsed but not resolved. */
  options: Record<string, string | boolean | undefined>;
  positionals: string[];
}

const SETTING_OPTIONS: Options = {
  help: { type: 'boolean', short: 'h' },
  // Not a setting but where settings come from: every command takes it (./env-file.ts).
  'env-file': { type: 'string', multiple: true },
  ...Object.fromEntries(SETTING_LIST.map((s) => [s.flag, { type: s.switch ? 'boolean' : 'string' } as const])),
};

/**
 * Reads flags (`--port 8080`) over environment variables over the files `--env-file` names
 * over defaults. A command's own options and positionals come back beside the
 * configuration, parsed but not resolved.
 */
export function loadConfig(argv: string[], env: NodeJS.ProcessEnv, command: CommandArguments = {}): LoadedArguments {
  const own = command.options ?? {};
  const options = { ...SETTING_OPTIONS, ...own };
  refuseUnknownOptions(argv, options);
  const { values, positionals } = parseArgs({
    args: argv,
    strict: true,
    allowPositionals: command.positionals ?? false,
    options,
  }) as { values: Record<string, string | boolean | undefined>; positionals: string[] };
  // A switch (`--public-reads`) counts as the value "true".
  const flags = Object.fromEntries(
    Object.entries(values)
      .filter(([name, v]) => (typeof v === 'string' || (v === true && name !== 'help')) && !Object.hasOwn(own, name))
      .map(([name, v]) => [name, String(v)]),
  );
  const ownValues = Object.fromEntries(Object.entries(values).filter(([name]) => Object.hasOwn(own, name)));
  refuseMisspeltVariables(env);
  const variables = withEnvFiles((values['env-file'] as string[] | undefined) ?? [], env);
  return { config: resolve(flags, variables), help: values.help === true, options: ownValues, positionals };
}

/** The configuration with every default applied, and `overrides` over it: what tests start from. */
export function defaultConfig(overrides: Partial<Config> = {}): Config {
  const config = { ...resolve({}, {}), ...overrides };
  // As from the environment: MAX_RECORD_BYTES follows BODY_LIMIT unless it is given.
  return { ...config, maxRecordBytes: overrides.maxRecordBytes ?? config.bodyLimit };
}

/** Every setting's default, read once: for code that needs a default without a configuration. */
export const CONFIG_DEFAULTS: Readonly<Config> = Object.freeze(defaultConfig());

/**
 * Refuses an option no one declared, suggesting the nearest that is (`--prot`: did you
 * mean --port?). parseArgs would refuse it too, but without a suggestion.
 */
function refuseUnknownOptions(argv: string[], options: Options): void {
  const { tokens } = parseArgs({ args: argv, options, strict: false, allowPositionals: true, tokens: true });
  for (const token of tokens) {
    if (token.kind !== 'option' || Object.hasOwn(options, token.name)) continue;
    const near = token.rawName.startsWith('--') ? nearest(token.name, Object.keys(options)) : undefined;
    throw new ConfigError(`unknown option ${token.rawName}${near ? `; did you mean --${near}?` : ''}`);
  }
}

function resolve(flags: Record<string, string>, env: NodeJS.ProcessEnv): Config {
  const config: Partial<Record<keyof Config, unknown>> = {};
  /** The name each setting was read under, for the messages of the rules below. */
  const source: Partial<Record<keyof Config, string>> = {};
  for (const s of SETTING_LIST) {
    const fromFlag = flags[s.flag];
    const fromEnv = env[s.env];
    const raw = fromFlag ?? (fromEnv !== undefined && fromEnv !== '' ? fromEnv : s.default);
    const name = fromFlag !== undefined ? `--${s.flag}` : s.env;
    source[s.key] = name;
    config[s.key] = s.parse(raw, name);
  }
  return combine(config as Config, source as Record<keyof Config, string>);
}

/** The rules no single setting can keep: settings that follow or must agree with others. */
function combine(config: Config, source: Record<keyof Config, string>): Config {
  // 0 stands for the default, BODY_LIMIT's value, which only now is known.
  if (config.maxRecordBytes === 0) config.maxRecordBytes = config.bodyLimit;
  // One list of keys from here on: API_KEYS's, then the file's.
  config.apiKeys = [...config.apiKeys, ...apiKeysFromFile(config.apiKeysFile, source.apiKeysFile)];
  const duplicate = duplicateKeys(config.apiKeys);
  if (duplicate) throw new ConfigError(`API_KEYS and API_KEYS_FILE: ${duplicate}`);
  if (config.headersTimeout > config.requestTimeout) {
    throw new ConfigError(
      `HEADERS_TIMEOUT (${config.headersTimeout}) must not exceed REQUEST_TIMEOUT (${config.requestTimeout})`,
    );
  }
  if (config.webhooksLeaseSeconds < 2 * config.webhooksTimeoutSeconds) {
    throw new ConfigError(
      `WEBHOOKS_LEASE_SECONDS (${config.webhooksLeaseSeconds}) must be at least twice WEBHOOKS_TIMEOUT_SECONDS (${config.webhooksTimeoutSeconds}): a delivery starts only while the lease will outlast it`,
    );
  }
  if (config.webhooksRetrySeconds >= config.eventsRetentionHours * 3600) {
    throw new ConfigError(
      `WEBHOOKS_RETRY_SECONDS (${config.webhooksRetrySeconds}) must be less than EVENTS_RETENTION_HOURS (${config.eventsRetentionHours}) in seconds: a paused webhook resumes from the change log`,
    );
  }
  return config;
}
