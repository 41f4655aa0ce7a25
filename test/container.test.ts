/**
 * The container image (Dockerfile, .dockerignore, compose.yaml), with no container daemon:
 * none runs in CI, so the image is never built here. What can be checked without one is:
 * every file the build copies exists and reaches the build context, the build copies every
 * file the packed tarball holds (or builds it), what the runtime stage runs is in the
 * tarball, the runtime stage runs as a user other than root with a health check and its
 * database on a volume, restock with the image's settings refuses to start without API keys
 * and serves with them, the health check's own command passes against it, and compose.yaml
 * wires PostgreSQL to restock as docs/operations.md says.
 *
 * The tarball's list comes from `npm pack --dry-run --ignore-scripts`: without the scripts,
 * packing does not compile dist/ (prepack), which the other test files start servers from;
 * dist/ is brought up to date once, by the import of the server helper, as in every file.
 */
import assert from 'node:assert/strict';
import { execFile, spawn } from 'node:child_process';
import { once } from 'node:events';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, posix } from 'node:path';
import { after, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { parse } from 'yaml';
import { runCommand, startServer } from './helpers/server.js';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const run = promisify(execFile);

interface Instruction {
  /** Upper case: FROM, COPY, RUN… */
  name: string;
  /** The rest of the line, continuation lines joined with a space. */
  text: string;
  /** The exec form's list (`CMD ["node", …]`), when the text is one. */
  exec?: string[];
  /** `--from=build` and the like, taken off the front of `text`. */
  flags: Record<string, string>;
}

interface Stage {
  base: string;
  name?: string;
  instructions: Instruction[];
}

/**
 * A Dockerfile's stages, by a small line parser: comments and blank lines dropped, a line
 * ending in `\` joined to the next, each instruction split into its name, its leading
 * `--flag=value`s and the rest, and a rest that is a JSON array read as the exec form.
 * Heredocs (`<<EOF`) and parser directives other than `syntax` are not understood: it
 * refuses a heredoc rather than misread one.
 */
function parseDockerfile(source: string): Stage[] {
  const lines: string[] = [];
  let pending = '';
  for (const raw of source.split('\n')) {
    const line = raw.trim();
    if (pending === '' && (line === '' || line.startsWith('#'))) continue;
    if (line.startsWith('#')) continue;
    pending += `${pending && line ? ' ' : ''}${line.endsWith('\\') ? line.slice(0, -1).trim() : line}`;
    if (!line.endsWith('\\')) {
      lines.push(pending);
      pending = '';
    }
  }
  const stages: Stage[] = [];
  for (const line of lines) {
    const match = /^(\w+)\s+(.*)$/.exec(line);
    assert.ok(match, `a Dockerfile line the parser reads: ${line}`);
    const name = (match[1] as string).toUpperCase();
    let text = match[2] as string;
    assert.ok(!text.includes('<<'), `a heredoc, which this parser does not read: ${line}`);
    const flags: Record<string, string> = {};
    for (let flag = /^--([\w-]+)=(\S+)\s+/.exec(text); flag; flag = /^--([\w-]+)=(\S+)\s+/.exec(text)) {
      flags[flag[1] as string] = flag[2] as string;
      text = text.slice(flag[0].length);
    }
    const instruction: Instruction = { name, text, flags };
    if (text.startsWith('[')) instruction.exec = JSON.parse(text) as string[];
    if (name === 'ARG' && stages.length === 0) continue;
    if (name === 'FROM') {
      const [base, as, stageName] = text.split(/\s+/);
      assert.ok(base, `FROM with an image: ${line}`);
      stages.push(
        as?.toUpperCase() === 'AS' && stageName
          ? { base, name: stageName, instructions: [] }
          : { base, instructions: [] },
      );
      continue;
    }
    const stage = stages.at(-1);
    assert.ok(stage, `an instruction before the first FROM: ${line}`);
    stage.instructions.push(instruction);
  }
  return stages;
}

/** The sources of a COPY from the build context (not `--from`), relative to the project. */
function contextSources(stage: Stage): string[] {
  return stage.instructions
    .filter((i) => i.name === 'COPY' && i.flags.from === undefined)
    .flatMap((i) => (i.exec ?? i.text.split(/\s+/)).slice(0, -1))
    .map((source) => posix.normalize(source).replace(/\/$/, ''));
}

/**
 * Whether .dockerignore leaves `path` out of the build context: a pattern matches the path
 * or a folder above it; `*` is any name's part, a leading `**\/` any depth (the only
 * wildcards the file uses; a `!` exception is refused).
 */
function ignoredBy(patterns: string[], path: string): boolean {
  const regexes = patterns.map((pattern) => {
    assert.ok(!pattern.startsWith('!'), '.dockerignore exceptions are not read here');
    const body = pattern
      .replace(/^\*\*\//, '\u0000')
      .replace(/[.+?^${}()|[\]\\]/g, '\\$&')
      .replaceAll('*', '[^/]*')
      .replace('\u0000', '(?:.*/)?');
    return new RegExp(`^${body}$`);
  });
  const parts = path.split('/');
  return parts.some((_, i) => regexes.some((regex) => regex.test(parts.slice(0, i + 1).join('/'))));
}

/** The files `npm pack` would put in the tarball of the package in `workspace` (the root's without one), bundled ones included. */
const packedFiles = memoized(async (workspace?: string): Promise<string[]> => {
  const args = ['pack', '--dry-run', '--json', '--ignore-scripts', ...(workspace ? ['--workspace', workspace] : [])];
  const env = { ...process.env, PATH: `${join(process.execPath, '..')}:${process.env.PATH}` };
  const { stdout } = await run('npm', args, { cwd: ROOT, env, maxBuffer: 16 * 1024 * 1024 });
  const [{ files }] = JSON.parse(stdout.slice(stdout.indexOf('['))) as [{ files: { path: string }[] }];
  return files.map((file) => file.path);
});

/** `f`, asked once per argument. */
function memoized<T>(f: (key?: string) => Promise<T>): (key?: string) => Promise<T> {
  const answers = new Map<string | undefined, Promise<T>>();
  return (key) => {
    if (!answers.has(key)) answers.set(key, f(key));
    return answers.get(key) as Promise<T>;
  };
}

const dockerfile = parseDockerfile(readFileSync(join(ROOT, 'Dockerfile'), 'utf8'));
const build = dockerfile.find((stage) => stage.name === 'build');
const runtime = dockerfile.at(-1);
const dockerignore = readFileSync(join(ROOT, '.dockerignore'), 'utf8')
  .split('\n')
  .map((line) => line.trim())
  .filter((line) => line !== '' && !line.startsWith('#'));

/** Every value of the runtime stage's ENV lines (`ENV A=1 B=2`, continuation lines joined). */
function runtimeEnv(): Record<string, string> {
  assert.ok(runtime, 'a runtime stage');
  const pairs = runtime.instructions.filter((i) => i.name === 'ENV').flatMap((i) => i.text.split(/\s+/));
  return Object.fromEntries(pairs.map((pair) => [pair.slice(0, pair.indexOf('=')), pair.slice(pair.indexOf('=') + 1)]));
}

const only = (stage: Stage | undefined, name: string): Instruction => {
  const found = stage?.instructions.filter((i) => i.name === name) ?? [];
  assert.equal(found.length, 1, `one ${name} in the runtime stage`);
  return found[0] as Instruction;
};

describe('the Dockerfile', () => {
  it('has a build stage and a runtime stage on the same official Node.js slim image', () => {
    assert.equal(dockerfile.length, 2);
    assert.ok(build && runtime && build !== runtime, 'a stage named build, then the runtime stage');
    assert.match(build.base, /^node:\$\{NODE_VERSION\}-slim$/);
    // The SQLite driver the build installs is the one the runtime's Node.js and architecture load.
    assert.equal(runtime.base, build.base);
    assert.deepEqual(
      runtime.instructions.filter((i) => i.name === 'COPY').map((i) => [i.flags.from, i.text]),
      [['build', '/app/ /app/']],
      'the runtime stage takes the installed folder alone',
    );
    assert.ok(
      runtime.instructions.every((i) => i.name !== 'RUN' || !/apt-get|apk|npm (install|ci)/.test(i.text)),
      'the runtime stage installs nothing: no compiler, no packages',
    );
  });

  it('copies only files that exist and that .dockerignore lets into the build context', () => {
    assert.ok(build, 'a build stage');
    const sources = contextSources(build);
    assert.ok(sources.length > 0, 'the build copies from the context');
    for (const source of sources) {
      assert.ok(existsSync(join(ROOT, source)), `${source} exists`);
      assert.ok(!ignoredBy(dockerignore, source), `${source} is not left out by .dockerignore`);
    }
    assert.ok(
      ignoredBy(dockerignore, 'node_modules') && ignoredBy(dockerignore, 'packages/client/node_modules'),
      'no node_modules in the context',
    );
    assert.ok(
      ignoredBy(dockerignore, 'dist/server.js') && ignoredBy(dockerignore, 'data/restock.db'),
      'no local build or database in the context',
    );
  });

  it('copies every file the packed tarball holds, or builds it, and packs and installs it', async () => {
    assert.ok(build, 'a build stage');
    const sources = contextSources(build);
    const copied = (file: string) => sources.some((source) => file === source || file.startsWith(`${source}/`));
    const builds = build.instructions.filter((i) => i.name === 'RUN').map((i) => i.text);
    assert.ok(
      builds.some((text) => text.includes('npm run build')),
      'the build stage compiles dist/',
    );
    assert.ok(
      builds.some((text) => /npm pack --pack-destination/.test(text)),
      'the build stage packs restock (its client bundled inside)',
    );
    assert.ok(
      builds.some((text) => /npm install --omit=dev .*\/restock-server-\*\.tgz$/.test(text)),
      'the build stage installs that tarball alone',
    );

    const restock = await packedFiles();
    assert.ok(restock.includes('dist/server.js'), 'dist/ is built, so the list holds it');
    // The bundled client's files come from packages/client/.
    const missing = restock
      .map((file) => file.replace(/^node_modules\/restock-client\//, 'packages/client/'))
      .filter((file) => !/^(packages\/client\/)?dist\//.test(file))
      .filter((file) => !copied(file));
    assert.deepEqual(missing, [], 'files the tarball holds that the build stage does not copy');
  });

  it('runs, as its entry point, a file the tarball holds, and what that file imports', async () => {
    const entry = only(runtime, 'ENTRYPOINT').exec;
    assert.ok(entry, 'ENTRYPOINT in exec form: node is PID 1 and gets SIGTERM itself');
    assert.equal(entry[0], 'node');
    const installed = '/app/node_modules/restock-server/';
    const script = entry.find((arg) => arg.startsWith(installed));
    assert.ok(script, 'the entry point runs the installed restock');
    const file = script.slice(installed.length);
    const imports = [...readFileSync(join(ROOT, file), 'utf8').matchAll(/import\s*(?:\(|.*from )?'(\.[^']+)'/g)].map(
      (match) => posix.join(posix.dirname(file), match[1] as string),
    );
    assert.ok(imports.includes('dist/server.js'), `${file} imports dist/server.js`);
    const packed = await packedFiles();
    for (const path of [file, ...imports]) assert.ok(packed.includes(path), `${path} is in the tarball`);
    assert.deepEqual(only(runtime, 'CMD').exec, ['serve']);
  });

  it('runs as a user other than root, keeps its SQLite file on a volume and checks /healthz', () => {
    const user = only(runtime, 'USER').text;
    assert.ok(!['root', '0'].includes(user.split(':')[0] as string), `USER ${user}`);
    const env = runtimeEnv();
    assert.equal(env.DATABASE_URL, 'sqlite:/data/restock.db');
    assert.deepEqual(only(runtime, 'VOLUME').text.split(/\s+/), ['/data']);
    assert.ok(
      runtime?.instructions.some((i) => i.name === 'RUN' && /chown node:node \/data/.test(i.text)),
      'the volume is the user’s to write',
    );
    assert.equal(env.HOST, '0.0.0.0');
    assert.equal(only(runtime, 'EXPOSE').text, env.PORT);
    assert.equal(env.INSECURE_NO_AUTH, undefined, 'the image keeps protected mode');
    const health = only(runtime, 'HEALTHCHECK');
    assert.match(health.text, /^CMD \["node", "-e", .*\/healthz/);
  });
});

describe("restock with the image's settings", () => {
  const dir = mkdtempSync(join(tmpdir(), 'restock-container-'));
  after(() => rmSync(dir, { recursive: true, force: true }));
  /** The runtime stage's ENV, with the database in a folder of this test's own. */
  const imageEnv = () => ({ ...runtimeEnv(), PORT: '0', DATABASE_URL: `sqlite:${join(dir, 'restock.db')}` });
  /** The HEALTHCHECK's own command, run here against `port`: its exit code. */
  const healthCheck = async (port: string) => {
    const command = JSON.parse(only(runtime, 'HEALTHCHECK').text.replace(/^CMD /, '')) as string[];
    const child = spawn(process.execPath, command.slice(1), { env: { ...process.env, PORT: port }, stdio: 'ignore' });
    const [code] = await once(child, 'exit');
    return code as number | null;
  };

  it('refuses to start without API keys, in one line naming the settings that let it', async () => {
    const { code, stderr } = await runCommand([], imageEnv());
    assert.equal(code, 1);
    assert.match(stderr, /^restock: refusing to listen on 0\.0\.0\.0 with no API keys.*API_KEYS.*INSECURE_NO_AUTH/);
  });

  it('serves with API keys, passes its health check while up, fails it once stopped, and exits 0 on SIGTERM', async () => {
    const server = await startServer({ ...imageEnv(), API_KEYS: 'admin:write:container-test-key-0123' });
    const port = new URL(server.url).port;
    try {
      assert.equal(await healthCheck(port), 0);
    } finally {
      assert.equal(await server.stop('SIGTERM'), 0);
    }
    assert.equal(await healthCheck(port), 1);
  });
});

describe('compose.yaml', () => {
  interface Service {
    image?: string;
    build?: string;
    environment?: Record<string, string>;
    volumes?: string[];
    healthcheck?: { test: string[] };
    depends_on?: Record<string, { condition: string }>;
    ports?: string[];
  }
  const compose = parse(readFileSync(join(ROOT, 'compose.yaml'), 'utf8')) as {
    services: Record<string, Service>;
    volumes: Record<string, unknown>;
  };

  it('runs PostgreSQL with a health check and its data on a volume', () => {
    const db = compose.services.db;
    assert.ok(db, 'a service db');
    assert.match(db.image ?? '', /^postgres:\d+/);
    assert.deepEqual(db.healthcheck?.test.slice(0, 2), ['CMD', 'pg_isready']);
    const [volume, path] = (db.volumes?.[0] ?? '').split(':');
    assert.equal(path, '/var/lib/postgresql/data');
    assert.ok(volume && volume in compose.volumes, 'a named volume, declared');
    assert.match(db.environment?.POSTGRES_PASSWORD ?? '', /^\$\{POSTGRES_PASSWORD:\?/);
  });

  it('builds restock from the Dockerfile and starts it once PostgreSQL is healthy, on it, with keys', () => {
    const { restock, db } = compose.services;
    assert.ok(restock && db, 'the services restock and db');
    assert.equal(restock.build, '.');
    assert.deepEqual(restock.depends_on, { db: { condition: 'service_healthy' } });
    const url = new URL(
      (restock.environment?.DATABASE_URL ?? '').replace(/\$\{POSTGRES_PASSWORD[^}]*\}/, 'the-password'),
    );
    assert.equal(url.protocol, 'postgres:');
    assert.equal(url.hostname, 'db');
    assert.equal(url.username, db.environment?.POSTGRES_USER);
    assert.equal(url.pathname, `/${db.environment?.POSTGRES_DB}`);
    assert.match(restock.environment?.API_KEYS ?? '', /^\$\{API_KEYS:\?/, 'API keys from the environment, required');
    assert.equal(restock.environment?.INSECURE_NO_AUTH, undefined);
    assert.deepEqual(restock.ports, [`${runtimeEnv().PORT}:${runtimeEnv().PORT}`]);
  });
});
