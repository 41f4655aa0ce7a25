/**
 * The OpenAPI document passes Redocly's recommended rules with no error and no warning
 * (redocly.yaml turns off only the rule against the trailing slashes of the API's own
 * paths), with and without collection schemas (and their accounts and rules, with keys), with
 * an outside identity provider, with each override setting and a PUBLIC_URL. Under Redocly's
 * defaults, untouched, the trailing slashes are its only errors, and the document says why.
 * Spectral (spectral:oas) is not installed: its packages run a telemetry script on install.
 * What its rules ask beyond Redocly's (a description on every operation, info.contact) is
 * checked here instead.
 */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { type Config, defaultConfig } from '../src/config/index.js';
import { buildApp } from '../src/http/app.js';
import { withKeys } from './helpers/keys.js';

const run = promisify(execFile);
const ROOT = fileURLToPath(new URL('..', import.meta.url));
const REDOCLY = join(ROOT, 'node_modules/@redocly/cli/bin/cli.js');

async function documentOf(settings: Partial<Config>): Promise<string> {
  const app = await buildApp({
    config: defaultConfig({ maxEventLoopDelay: 0, databaseUrl: 'sqlite::memory:', ...settings }),
    logStream: false,
  });
  try {
    // As a client would reach a deployed server: localhost would draw the linter's warning.
    return (await app.inject({ url: '/openapi.json', headers: { host: 'restock.test:3000' } })).body;
  } finally {
    await app.close();
  }
}

const redocly = (file: string, config: string) =>
  run(process.execPath, [REDOCLY, 'lint', file, '--config', config, '--format', 'json'], {
    cwd: ROOT,
    env: { ...process.env, REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true' },
  }).catch((error: { stdout: string; stderr: string }) => ({ stdout: error.stdout, stderr: error.stderr }));

describe('the OpenAPI document under a linter', () => {
  const shop = withKeys({ schemas: join(ROOT, 'schemas/shop') });
  // Sign-in with two outside providers (AUTH_PROVIDERS); they are only asked at a sign-in.
  const provider = {
    issuer: 'https://id.test',
    clientId: 'restock',
    clientSecret: 's',
    scopes: ['openid'],
    fields: {},
  };
  const withProviders: Partial<Config> = {
    ...shop,
    authProviders: {
      users: [
        { name: 'one', ...provider },
        { name: 'two', ...provider },
      ],
    },
  };

  it("has no error under Redocly's default rules but the trailing slashes it explains", async () => {
    const dir = mkdtempSync(join(tmpdir(), 'restock-lint-'));
    const document = await documentOf(shop);
    writeFileSync(join(dir, 'openapi.json'), document);
    writeFileSync(join(dir, 'redocly.yaml'), 'extends:\n  - recommended\n');
    const { stdout } = await redocly(join(dir, 'openapi.json'), join(dir, 'redocly.yaml'));
    const problems = (JSON.parse(stdout) as { problems: { ruleId: string }[] }).problems;
    const paths = Object.keys((JSON.parse(document) as { paths: object }).paths);
    assert.deepEqual(
      problems.map((problem) => problem.ruleId),
      paths.filter((path) => path.length > 1 && path.endsWith('/')).map(() => 'no-path-trailing-slash'),
    );
    const { info } = JSON.parse(document) as { info: { description: string } };
    assert.match(info.description, /listed with their trailing slash on purpose/);
  });

  it('has no error and no warning with providers but that their redirects have no 2xx answer, by design', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'restock-lint-'));
    writeFileSync(join(dir, 'openapi.json'), await documentOf(withProviders));
    const { stdout } = await redocly(join(dir, 'openapi.json'), join(ROOT, 'redocly.yaml'));
    const problems = (JSON.parse(stdout) as { problems: { ruleId: string; location: { pointer: string }[] }[] })
      .problems;
    const redirects = ['{name}~1', '{name}~1callback~1'].flatMap((path) =>
      ['get', 'head'].map(
        (method) => `operation-2xx-response #/paths/~1users~1auth~1providers~1${path}/${method}/responses`,
      ),
    );
    assert.deepEqual(
      problems.map((problem) => `${problem.ruleId} ${problem.location[0]?.pointer}`).sort(),
      redirects.sort(),
    );
  });

  for (const [name, settings] of [
    ['users and products', {}],
    ['the example store with API keys', shop],
    ['the example store with providers', withProviders],
  ] as const) {
    it(`meets what Spectral's oas rules ask beyond Redocly's: info.contact, operation descriptions (${name})`, async () => {
      const document = JSON.parse(await documentOf(settings)) as {
        info: { contact?: object };
        paths: Record<string, Record<string, { description?: string }>>;
      };
      assert.ok(document.info.contact, 'info.contact');
      const bare = Object.entries(document.paths).flatMap(([path, item]) =>
        Object.entries(item).flatMap(([method, operation]) =>
          operation.description?.trim() ? [] : [`${method.toUpperCase()} ${path}`],
        ),
      );
      assert.deepEqual(bare, []);
    });
  }

  const cases: { name: string; settings: Partial<Config> }[] = [
    { name: 'users and products', settings: {} },
    { name: 'the example store (SCHEMAS)', settings: { schemas: join(ROOT, 'schemas/shop') } },
    // Its accounts and rules with keys beside them: every scheme named, every one used.
    { name: 'the example store with API keys', settings: withKeys({ schemas: join(ROOT, 'schemas/shop') }) },
    // Tokens verified, but no rules to take them: no scheme left unused.
    {
      name: 'an outside identity provider, no rules',
      settings: { authIssuer: 'https://id.test', authAudience: 'restock', authJwksUrl: 'https://id.test/jwks' },
    },
    { name: 'METHOD_OVERRIDE=post', settings: { methodOverride: new Set(['POST']) } },
    { name: 'METHOD_OVERRIDE=off', settings: { methodOverride: new Set() } },
    { name: 'PUBLIC_URL', settings: { publicUrl: 'https://api.restock.test/v1' } },
  ];
  for (const { name, settings } of cases) {
    it(`has no error and no warning: ${name}`, async () => {
      const file = join(mkdtempSync(join(tmpdir(), 'restock-lint-')), 'openapi.json');
      writeFileSync(file, await documentOf(settings));
      const { stdout, stderr } = await run(
        process.execPath,
        [REDOCLY, 'lint', file, '--config', join(ROOT, 'redocly.yaml')],
        {
          cwd: ROOT,
          env: { ...process.env, REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true' },
        },
      ).catch((error: { stdout: string; stderr: string }) => {
        throw new Error(`redocly lint failed:\n${error.stdout}\n${error.stderr}`);
      });
      const output = `${stdout}\n${stderr}`;
      assert.match(output, /Your API description is valid/, output);
      assert.doesNotMatch(output, /You have \d+ warnings?/, output);
    });
  }
});
