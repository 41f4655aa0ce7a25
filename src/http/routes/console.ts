/**
 * The browser console: a page at `/` for requests that prefer HTML, and at `/console/` for
 * any request (where links in mail and a provider's sign-in lead: APP_URL's default), with
 * its script and style under `/console/`. The files live in `public/console/`, beside `src/` and `dist/`
 * alike, so that the compiled server finds them where the sources do. The page names them
 * under `/console/<version>/`, a hash of their bytes taken at start, where browsers may keep
 * them for good (../plugins/compression/static-assets.ts); the page itself is checked on
 * every visit, so a new release reaches them at once.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { extname } from 'node:path';
import { fileURLToPath } from 'node:url';
import accepts from '@fastify/accepts';
import fastifyStatic from '@fastify/static';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
import { type AssetFile, serveVersionedAssets } from '../plugins/compression/index.js';
import { REQUEST_PLUGINS } from '../plugins/index.js';
import { routesTakePolicy } from '../route-policy.js';

/** The folder of the console's files. */
export const CONSOLE_ASSETS = fileURLToPath(new URL('../../../public/console/', import.meta.url));

/** Where the console's script and style are served. */
const PREFIX = '/console/';

/**
 * The page may load only its own script and style and talk only to this server: an
 * injected record value can never run as code or send data elsewhere.
 */
const CONTENT_SECURITY_POLICY = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  // blob: for the previews of files, fetched with the console's credential (public/console/files.js).
  "img-src 'self' data: blob:",
  "connect-src 'self'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join('; ');

export interface ConsolePage {
  /** Whether the request would rather have the page than the JSON index (its Accept says so). */
  wanted(request: FastifyRequest): boolean;
  send(reply: FastifyReply): FastifyReply;
}

declare module 'fastify' {
  interface FastifyInstance {
    /** The console's page, for `/` to send to browsers (./service.ts). */
    consolePage: ConsolePage;
  }
}

/**
 * Serves the console's files (public: the page then asks for a key) and offers the page to
 * `/` as `app.consolePage`. @fastify/static adds its routes in the scope made here, so this
 * comes after every plugin that acts on requests.
 */
export const browserConsole = fp(serveConsole, {
  name: 'restock-console',
  fastify: '5.x',
  dependencies: REQUEST_PLUGINS,
});

async function serveConsole(app: FastifyInstance): Promise<void> {
  await app.register(accepts);
  let version = '';
  await app.register(async (scope) => {
    await consoleFiles(scope);
    version = serveVersionedAssets(scope, { prefix: PREFIX, files: consoleAssets() }).version;
    scope.get(PREFIX, { schema: { hide: true } }, (_request, reply) => app.consolePage.send(reply));
  });
  // The page names its script and style at their versioned path; their own imports are
  // relative (./auth.js), so they stay within the same version.
  const page = readFileSync(`${CONSOLE_ASSETS}index.html`, 'utf8').replaceAll(
    /(src|href)="\/console\//g,
    `$1="${PREFIX}${version}/`,
  );
  app.decorate<ConsolePage>('consolePage', {
    wanted: (request) => request.accepts().type(['json', 'html']) === 'html',
    send: (reply) =>
      reply
        .header('content-security-policy', CONTENT_SECURITY_POLICY)
        .header('cache-control', 'no-cache')
        .type('text/html; charset=utf-8')
        .send(page),
  });
}

const ASSET_TYPES: Record<string, string> = {
  '.js': 'application/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
};

/** The console's scripts and style, read once at start: the versioned URLs serve these bytes. */
function consoleAssets(): AssetFile[] {
  return readdirSync(CONSOLE_ASSETS)
    .filter((name) => ASSET_TYPES[extname(name)] !== undefined)
    .sort()
    .map((name) => ({
      name,
      type: ASSET_TYPES[extname(name)] as string,
      bytes: readFileSync(`${CONSOLE_ASSETS}${name}`),
    }));
}

/**
 * The console's files at their unversioned paths, read from disk on each request, in a
 * scope of its own where every route is public.
 */
async function consoleFiles(scope: FastifyInstance): Promise<void> {
  routesTakePolicy(scope, { public: true });
  await scope.register(fastifyStatic, {
    root: CONSOLE_ASSETS,
    prefix: PREFIX,
    // One route per file found at start: nothing else under the prefix is looked up on disk.
    wildcard: false,
    decorateReply: false,
    index: false,
    cacheControl: true,
    maxAge: '5m',
  });
}
