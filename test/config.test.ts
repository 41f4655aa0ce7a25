/** Configuration: flags over environment over defaults, and docs/configuration.md lists every setting. */
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import {
  CONFIG_DEFAULTS,
  ConfigError,
  defaultConfig,
  editDistance,
  envNameOf,
  flagNameOf,
  helpText,
  loadConfig,
  nameSettings,
  nearest,
  parseApiKeys,
  SETTING_LIST,
  SETTINGS,
  settingMeant,
} from '../src/config/index.js';
import { DEFAULT_LOAD_SHEDDING } from '../src/http/plugins/load-shedding.js';
import { DEFAULT_IDEMPOTENCY_OPTIONS } from '../src/http/routes/records/idempotency.js';

describe('configuration', () => {
  it('has the documented defaults', () => {
    const config = defaultConfig();
    assert.equal(config.port, 3000);
    assert.equal(config.host, '127.0.0.1');
    assert.equal(config.databaseUrl, 'sqlite:./data/restock.db');
    assert.equal(config.logLevel, 'info');
    assert.deepEqual([...config.methodOverride], ['GET', 'POST']);
    assert.equal(config.bodyLimit, 1024 * 1024);
    assert.equal(config.maxDepth, 32);
    assert.equal(config.maxFieldNameLength, 200);
    assert.equal(config.maxRecordBytes, 1024 * 1024);
    assert.equal(config.maxPageBytes, 8 * 1024 * 1024);
  });

  it('makes MAX_RECORD_BYTES follow BODY_LIMIT unless it is set', () => {
    assert.equal(loadConfig([], { BODY_LIMIT: '2000' }).config.maxRecordBytes, 2000);
    assert.equal(loadConfig(['--body-limit', '3000'], { BODY_LIMIT: '2000' }).config.maxRecordBytes, 3000);
    assert.equal(loadConfig([], { BODY_LIMIT: '2000', MAX_RECORD_BYTES: '500' }).config.maxRecordBytes, 500);
    assert.equal(defaultConfig({ bodyLimit: 4096 }).maxRecordBytes, 4096);
    assert.equal(defaultConfig({ bodyLimit: 4096, maxRecordBytes: 100 }).maxRecordBytes, 100);
    assert.throws(() => loadConfig([], { MAX_RECORD_BYTES: '0' }), /MAX_RECORD_BYTES/);
    assert.throws(() => loadConfig([], { MAX_PAGE_BYTES: '0' }), /MAX_PAGE_BYTES/);
  });

  it('takes a flag over an environment variable over the default', () => {
    const { config } = loadConfig(['--port', '8080'], { PORT: '9090', HOST: '0.0.0.0' });
    assert.equal(config.port, 8080);
    assert.equal(config.host, '0.0.0.0');
    assert.equal(loadConfig([], { PORT: '' }).config.port, 3000, 'an empty variable counts as unset');
  });

  it('refuses bad values naming the setting', () => {
    assert.throws(
      () => loadConfig([], { PORT: '70000' }),
      (e: Error) => e instanceof ConfigError && /PORT/.test(e.message),
    );
    assert.throws(() => loadConfig(['--log-level', 'loud'], {}), /--log-level/);
    assert.throws(() => loadConfig([], { MAX_DEPTH: '0' }), /MAX_DEPTH/);
  });

  it('takes a fraction of a second where a setting counts seconds, and refuses what is no number', () => {
    assert.equal(loadConfig([], { EVENTS_HEARTBEAT_SECONDS: '0.05' }).config.eventsHeartbeatSeconds, 0.05);
    assert.equal(loadConfig([], {}).config.eventsHeartbeatSeconds, 15);
    for (const bad of ['0', '0.001', 'soon', '1e9', ' ']) {
      assert.throws(
        () => loadConfig([], { EVENTS_HEARTBEAT_SECONDS: bad }),
        /EVENTS_HEARTBEAT_SECONDS must be a number of seconds from 0\.01 to 3600/,
        bad,
      );
    }
  });

  it('lists every setting in --help and in docs/configuration.md', () => {
    const document = readFileSync(new URL('../docs/configuration.md', import.meta.url), 'utf8');
    const rows = document
      .split('\n')
      .filter((line) => line.startsWith('|'))
      .map((line) => line.split('|').map((cell) => cell.trim()));
    const help = helpText();
    for (const s of SETTING_LIST) {
      assert.ok(help.includes(`--${s.flag}`) && help.includes(s.env), `--help lacks ${s.env}`);
      const row = rows.find((cells) => cells[1] === `\`${s.env}\``);
      const fallback = s.default === '' ? 'none' : `\`${s.default}\``;
      assert.deepEqual(row?.slice(2, 4), [`\`--${s.flag}\``, fallback], `docs/configuration.md row of ${s.env}`);
    }
  });

  it('derives each variable and flag from the key, unless the declaration names them', () => {
    assert.equal(envNameOf('port'), 'PORT');
    assert.equal(flagNameOf('port'), 'port');
    assert.equal(envNameOf('databaseStatementTimeout'), 'DATABASE_STATEMENT_TIMEOUT');
    assert.equal(flagNameOf('databaseStatementTimeout'), 'database-statement-timeout');
    assert.equal(envNameOf('maxCostlyQueriesPerClient'), 'MAX_COSTLY_QUERIES_PER_CLIENT');
    const declared = { default: '', parse: (raw: string) => raw, help: '', group: 'server' } as const;
    const [derived, renamed] = nameSettings({ keepAlive: declared, oldName: { ...declared, env: 'OLD', flag: 'old' } });
    assert.deepEqual([derived?.key, derived?.env, derived?.flag], ['keepAlive', 'KEEP_ALIVE', 'keep-alive']);
    assert.deepEqual([renamed?.key, renamed?.env, renamed?.flag], ['oldName', 'OLD', 'old']);
    for (const s of SETTING_LIST) {
      assert.equal(s.env, envNameOf(s.key), `${s.key}: every name today follows from its key`);
      assert.equal(s.flag, flagNameOf(s.key), s.key);
    }
    assert.equal(new Set(SETTING_LIST.map((s) => s.env)).size, SETTING_LIST.length, 'variables are unique');
    assert.equal(new Set(SETTING_LIST.map((s) => s.flag)).size, SETTING_LIST.length, 'flags are unique');
    assert.deepEqual(Object.keys(defaultConfig()), Object.keys(SETTINGS), 'one Config field per setting');
  });

  it('states every default once, in the declaration, which the HTTP defaults read too', () => {
    const { config } = loadConfig([], {});
    assert.deepEqual({ ...CONFIG_DEFAULTS }, config);
    assert.equal(CONFIG_DEFAULTS.maxRecordBytes, CONFIG_DEFAULTS.bodyLimit);
    assert.equal(DEFAULT_LOAD_SHEDDING.maxEventLoopDelayMs, CONFIG_DEFAULTS.maxEventLoopDelay);
    assert.equal(DEFAULT_IDEMPOTENCY_OPTIONS.ttlMs, CONFIG_DEFAULTS.idempotencyKeyHours * 3_600_000);
  });

  it('refuses an unknown flag, suggesting the nearest known one', () => {
    const refused = (argv: string[], message: RegExp) =>
      assert.throws(
        () => loadConfig(argv, {}),
        (e: Error) => e instanceof ConfigError && message.test(e.message),
      );
    refused(['--prot', '8080'], /^unknown option --prot; did you mean --port\?$/);
    refused(['--databse-url=sqlite::memory:'], /^unknown option --databse-url; did you mean --database-url\?$/);
    refused(['--public-read'], /did you mean --public-reads\?/);
    refused(['--port', '1', '--frobnicate'], /^unknown option --frobnicate$/);
    refused(['-x'], /^unknown option -x$/);
    // A command's own options are candidates too.
    const command = { options: { 'batch-size': { type: 'string' as const } } };
    assert.throws(() => loadConfig(['--batch-szie', '5'], {}, command), /did you mean --batch-size\?/);
    assert.equal(loadConfig(['--batch-size', '5'], {}, command).options['batch-size'], '5');
  });

  it("refuses a variable a slip away from a setting's name, naming the setting", () => {
    const refused = (env: Record<string, string>, message: string) =>
      assert.throws(
        () => loadConfig([], env),
        (e: Error) => e instanceof ConfigError && e.message === message,
      );
    const advice = '(rename it, or unset it if another program reads it)';
    refused({ API_KEY: 'shop:write:k' }, `API_KEY is not a setting; did you mean API_KEYS? ${advice}`);
    refused({ DATABSE_URL: 'postgres://x/y' }, `DATABSE_URL is not a setting; did you mean DATABASE_URL? ${advice}`);
    refused({ PROT: '4520' }, `PROT is not a setting; did you mean PORT? ${advice}`);
    refused({ port: '4520' }, `port is not a setting; did you mean PORT? ${advice}`);
    for (const [slip, meant] of [
      ['HSOT', 'HOST'],
      ['LOGLEVEL', 'LOG_LEVEL'],
      ['DATABASE_STATMENT_TIMOUT', 'DATABASE_STATEMENT_TIMEOUT'],
      ['WOKRERS', 'WORKERS'],
      ['REDIS_URI', 'REDIS_URL'],
    ] as const) {
      assert.equal(settingMeant(slip), meant, slip);
    }
  });

  it("takes other programs' variables, this machine's and CI's, without a word", () => {
    assert.doesNotThrow(() => loadConfig([], process.env), 'the environment the tests run in');
    // Names other programs set, some one edit from PORT or HOST (Marathon's PORT0, POST).
    const others = `PATH HOME USER PWD OLDPWD SHELL TERM LANG TZ TMPDIR HOSTNAME HOSTTYPE OSTYPE LOGNAME
      NODE_ENV NODE_OPTIONS NODE_PATH NODE_TEST_CONTEXT NODE_EXTRA_CA_CERTS FORCE_COLOR NO_COLOR DEBUG CI
      GITHUB_ACTIONS GITHUB_WORKSPACE GITHUB_API_URL GITHUB_SERVER_URL RUNNER_OS RUNNER_TEMP ImageOS INIT_CWD
      PGHOST PGPORT PGUSER PGDATABASE REDIS_HOST REDIS_PORT REDIS_TLS_URL DATABASE_HOST DATABASE_PORT
      DATABASE_USER DATABASE_NAME DATABASE_PASSWORD DATABASE_PUBLIC_URL POSTGRES_URL HTTP_PROXY NO_PROXY
      http_proxy DOCKER_HOST KUBERNETES_SERVICE_HOST KUBERNETES_SERVICE_PORT HTTP_PORT APP_PORT SERVER_PORT
      WEB_CONCURRENCY PORT0 PORT1 HOSTS POST COST SORT HOME_DIR API_URL BASE_URL PUBLIC_PATH LOG_FORMAT
      npm_config_cache npm_lifecycle_event npm_package_name RESTOCK_REQUIRE_POSTGRES RESTOCK_TEST_SHARD`;
    for (const name of others.split(/\s+/)) assert.equal(settingMeant(name), undefined, name);
    assert.doesNotThrow(() =>
      loadConfig([], { PORT: '4520', HOST: '0.0.0.0', API_KEYS: 'shop:write:0123456789abcdef' }),
    );
  });

  it('measures how far a name is from another', () => {
    assert.equal(editDistance('', ''), 0);
    assert.equal(editDistance('port', 'port'), 0);
    assert.equal(editDistance('prot', 'port'), 1, 'a swap of neighbours is one edit');
    assert.equal(editDistance('ca', 'abc'), 3);
    assert.equal(editDistance('kitten', 'sitting'), 3);
    assert.equal(editDistance('', 'abc'), 3);
    assert.equal(nearest('hots', ['port', 'host']), 'host');
    assert.equal(nearest('zzzzzzzz', ['port', 'host']), undefined, 'nothing near enough');
  });

  it('takes every API_KEYS example of the documents exactly as written', () => {
    const root = new URL('../', import.meta.url);
    const documents = [
      'README.md',
      'SECURITY.md',
      ...readdirSync(new URL('docs/', root)).map((name) => `docs/${name}`),
    ];
    const found: Record<string, number> = {};
    for (const document of documents.filter((name) => name.endsWith('.md'))) {
      const text = readFileSync(new URL(document, root), 'utf8');
      // As a variable (`API_KEYS=…`, quoted or not, in a shell line or a settings file) and
      // as the table's example (`name:read:key` in backticks).
      const examples = [
        ...[...text.matchAll(/\bAPI_KEYS=('[^']*'|"[^"]*"|\S+)/g)].map(([, value = '']) =>
          value.replace(/^['"]|['"]$/g, ''),
        ),
        ...[...text.matchAll(/`([\w.-]+:(?:read|write):[^`\s]+)`/g)].map(([, value = '']) => value),
      ];
      for (const example of examples) {
        assert.doesNotThrow(() => parseApiKeys(example), `${document}: ${example}`);
        assert.doesNotThrow(() => loadConfig([], { API_KEYS: example }), `${document}: ${example}`);
      }
      found[document] = examples.length;
    }
    for (const document of ['README.md', 'docs/api.md', 'docs/configuration.md']) {
      assert.ok((found[document] ?? 0) > 0, `${document} shows an API_KEYS example`);
    }
  });
});
