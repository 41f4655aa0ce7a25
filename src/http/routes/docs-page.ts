/**
 * The reference page at /docs/: Swagger UI, from the copy of swagger-ui-dist that
 * @fastify/swagger-ui ships, on a page of restock's own. @fastify/swagger-ui's page names
 * its scripts at fixed URLs (./static/swagger-ui-bundle.js), which no browser may keep
 * without asking again; here every asset's URL carries the version of its bytes
 * (../plugins/compression/static-assets.ts), so a browser keeps them for good and a
 * release still reaches it. The page itself and the document change with the server's
 * schemas and version, and are checked on each visit.
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { FastifyInstance } from 'fastify';
import { HEAD_TAG } from '../../api/openapi/head-operations.js';
import { OVERRIDE_TAG } from '../../api/openapi/tunnelled.js';
import { JSON_TYPE } from '../../records/render.js';
import { type AssetFile, serveVersionedAssets } from '../plugins/compression/index.js';
import { routesTakePolicy } from '../route-policy.js';

/** Where Swagger UI's files are: swagger-ui-dist, as @fastify/swagger-ui's package holds it. */
const SWAGGER_UI = join(dirname(createRequire(import.meta.url).resolve('@fastify/swagger-ui')), 'static');

/** restock's own style for the page (dark mode, a phone's width), beside the console's files. */
const REFERENCE_STYLE = fileURLToPath(new URL('../../../public/docs/reference.css', import.meta.url));

/** The tags the page shows folded: the HEAD and tunnelled forms, after the collections' own operations. */
const FOLDED_TAGS = [HEAD_TAG.name, OVERRIDE_TAG];

/**
 * The page's policy: its own scripts, styles and fonts, images inline or its own, requests
 * to this server only. (@fastify/swagger-ui's own allows any https: style and font and the
 * public validator's images, and upgrades to https, which a plain-HTTP server cannot answer.)
 */
const CONTENT_SECURITY_POLICY = [
  "default-src 'self'",
  "base-uri 'self'",
  "font-src 'self' data:",
  "frame-ancestors 'self'",
  "img-src 'self' data:",
  "object-src 'none'",
  "script-src 'self'",
  "script-src-attr 'none'",
  "style-src 'self'",
  "connect-src 'self'",
].join('; ');

/**
 * Swagger UI's settings, as a script of the page's own (the policy allows no inline one).
 * What keeps the page fast on a large document: swagger-client resolves an OpenAPI 3.1
 * document through ApiDOM, which walks the whole document for every part it resolves, and
 * the Schemas section at the bottom asks for each schema in turn as soon as it is shown
 * (2.6 s of the 5.6 s the page took to show its operations, over the example shop). Hidden
 * (`defaultModelsExpandDepth: -1`), each operation still shows its schemas when opened.
 * Swagger UI reads the document's text as YAML, which takes several times as long as
 * JSON.parse: the page's document is JSON, so JSON.parse reads it, and Swagger UI's own
 * parser only what JSON.parse refuses.
 * BaseLayout has no top bar, so no standalone preset (268 KB) is loaded. The script is
 * deferred: it runs once the page is parsed, without waiting for the icons.
 * The page follows the reader's colour scheme with Swagger UI's own dark theme (its
 * `html.dark-mode`), and shows the tags of the HEAD and tunnelled forms folded (a link
 * into one unfolds it), so that the reader meets the collections first.
 */
const INITIALIZER = `(function () {
  function resolveRefFreeAtOnce() {
    function wrap(request, system) {
      return function (path) {
        var part = path[0] === 'paths' ? undefined : system.specSelectors.specJson().getIn(path);
        var plain = part && part.toJS ? part.toJS() : undefined;
        if (plain && JSON.stringify(plain).indexOf('"$ref"') === -1) {
          return system.specActions.updateResolvedSubtree(path, plain);
        }
        return request(path);
      };
    }
    return { statePlugins: { spec: { wrapActions: { requestResolvedSubtree: wrap } } } };
  }
  function parseJsonAsJson() {
    function wrap(parse, system) {
      return function (text) {
        var json;
        try {
          json = JSON.parse(text || system.specSelectors.specStr());
        } catch (notJson) {
          return parse(text);
        }
        system.errActions.clear({ source: 'parser' });
        return system.specActions.updateJsonSpec(json && typeof json === 'object' ? json : {});
      };
    }
    return { statePlugins: { spec: { wrapActions: { parseToJson: wrap } } } };
  }
  // A GET or HEAD the override header may turn into a write lists that write's body, but
  // fetch refuses to send a GET with one: "try it" would send nothing at all. Sent bodiless.
  function dropGetBody(request) {
    if (request.method === 'GET' || request.method === 'HEAD') delete request.body;
    return request;
  }
  var dark = window.matchMedia('(prefers-color-scheme: dark)');
  function followColourScheme() {
    document.documentElement.classList.toggle('dark-mode', dark.matches);
  }
  followColourScheme();
  dark.addEventListener('change', followColourScheme);
  var page = window.location.href.split('#', 1)[0];
  var base = page.endsWith('/') ? page : page + '/';
  window.ui = SwaggerUIBundle({
    url: base + 'json',
    dom_id: '#swagger-ui',
    presets: [SwaggerUIBundle.presets.apis],
    plugins: [SwaggerUIBundle.plugins.DownloadUrl, resolveRefFreeAtOnce, parseJsonAsJson],
    layout: 'BaseLayout',
    validatorUrl: null,
    deepLinking: true,
    displayRequestDuration: true,
    tryItOutEnabled: true,
    defaultModelsExpandDepth: -1,
    requestInterceptor: dropGetBody,
  });
  // Folded before the document arrives, so from the first render; a link into one of them
  // (#/HEAD/getIndexHead) unfolds it, as deep linking does for any tag.
  // (Deep links write a tag's spaces as underscores: #/method_override/tunnelUser.)
  var linked = decodeURIComponent(window.location.hash.split('/')[1] || '').replace(/\\s/g, '_');
  ${JSON.stringify(FOLDED_TAGS)}.forEach(function (tag) {
    if (tag.replace(/\\s/g, '_') !== linked) window.ui.layoutActions.show(['operations-tag', tag], false);
  });
})();
`;

function swaggerUiFile(name: string, type: string): AssetFile {
  return { name, type, bytes: readFileSync(join(SWAGGER_UI, name)) };
}

/** Registers the page, its document and its assets in `scope`, where every route is public. */
export async function referencePage(scope: FastifyInstance): Promise<void> {
  routesTakePolicy(scope, { public: true });
  const assets = serveVersionedAssets(scope, {
    prefix: '/docs/static/',
    files: [
      swaggerUiFile('swagger-ui.css', 'text/css; charset=utf-8'),
      swaggerUiFile('index.css', 'text/css; charset=utf-8'),
      { name: 'reference.css', type: 'text/css; charset=utf-8', bytes: readFileSync(REFERENCE_STYLE) },
      swaggerUiFile('swagger-ui-bundle.js', 'application/javascript; charset=utf-8'),
      swaggerUiFile('favicon-32x32.png', 'image/png'),
      swaggerUiFile('favicon-16x16.png', 'image/png'),
      {
        name: 'swagger-initializer.js',
        type: 'application/javascript; charset=utf-8',
        bytes: Buffer.from(INITIALIZER),
      },
    ],
    // The paths @fastify/swagger-ui served them at, for pages and bookmarks that name them.
    unversioned: true,
  });
  // Relative URLs, so that the page works under a PUBLIC_URL with a path: from /docs/ they
  // start at ./, from /docs at docs/. The document is preloaded, so that it is fetched (and,
  // on the first visit after a start, generated) while the browser still runs the bundle's
  // 1.6 MB of script rather than after: Swagger UI's own request for it, to the same address in CORS mode
  // with same-origin credentials (what `crossorigin` asks for), takes the preloaded answer.
  const pageAt = (base: string) => {
    const url = (name: string) => `${base}${assets.pathOf(name).slice('/docs/'.length)}`;
    return `<!doctype html>
<html lang="en">
  <head>
    <meta charset="utf-8" />
    <meta name="viewport" content="width=device-width, initial-scale=1" />
    <meta name="color-scheme" content="light dark" />
    <title>restock API reference</title>
    <link rel="stylesheet" href="${url('swagger-ui.css')}" />
    <link rel="stylesheet" href="${url('index.css')}" />
    <link rel="stylesheet" href="${url('reference.css')}" />
    <link rel="icon" type="image/png" href="${url('favicon-32x32.png')}" sizes="32x32" />
    <link rel="icon" type="image/png" href="${url('favicon-16x16.png')}" sizes="16x16" />
    <link rel="preload" href="${base}json" as="fetch" crossorigin />
    <script src="${url('swagger-ui-bundle.js')}" defer></script>
    <script src="${url('swagger-initializer.js')}" defer></script>
  </head>
  <body>
    <div id="swagger-ui"></div>
  </body>
</html>
`;
  };
  const pages = { withSlash: pageAt('./'), withoutSlash: pageAt('docs/') };
  scope.get('/docs/', { schema: { hide: true } }, (request, reply) =>
    reply
      .header('content-security-policy', CONTENT_SECURITY_POLICY)
      .header('cache-control', 'no-cache')
      .type('text/html; charset=utf-8')
      .send(request.url.split('?', 1)[0]?.endsWith('/') ? pages.withSlash : pages.withoutSlash),
  );

  // The page's copy of the document keeps the generated servers entry: a relative one
  // resolves against the page's own address in the browser. Rendered once, on first use.
  let json: string | undefined;
  let yaml: string | undefined;
  scope.get('/docs/json', { schema: { hide: true } }, (_request, reply) => {
    json ??= JSON.stringify(scope.swagger());
    return reply.type(JSON_TYPE).send(json);
  });
  scope.get('/docs/yaml', { schema: { hide: true } }, (_request, reply) => {
    yaml ??= scope.swagger({ yaml: true });
    return reply.type('application/x-yaml').send(yaml);
  });
}
