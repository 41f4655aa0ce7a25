# restock's container image (docs/operations.md#containers). No container daemon runs in CI:
# test/container.test.ts checks this file and compose.yaml against the packed tarball, and
# runs restock with the settings below, but the image itself is not built there.
#
# The build stage builds the package as `npm pack` ships it and installs that tarball into
# an empty folder, as any user of the package does; the runtime stage takes only that folder:
# no sources, no dev dependencies, no compiler. Both stages run the same Node.js, so the
# SQLite driver the build installs is the one the runtime's Node.js and architecture load.
#
# NODE_VERSION: 22, 24 or 26 (`--build-arg NODE_VERSION=26`). From 22 on, better-sqlite3 13
# installs prebuilt; Node.js 20's driver would have to be compiled, which this image does not do.
ARG NODE_VERSION=24

FROM node:${NODE_VERSION}-slim AS build
RUN node -e "if (+process.versions.node.split('.')[0] < 22) { console.error('restock image: NODE_VERSION must be 22 or later'); process.exit(1); }"
WORKDIR /src
# What the install needs comes first, so that a change to the sources alone reuses its layer.
# npm install, not npm ci: npm 11's lock file lacks other platforms' optional Biome binaries.
COPY package.json package-lock.json ./
COPY packages/client/ packages/client/
COPY packages/sqlite-node20/ packages/sqlite-node20/
RUN npm install --no-audit --no-fund
COPY tsconfig.json tsconfig.build.json tsconfig.client.json ./
COPY src/ src/
COPY bin/ bin/
COPY scripts/check-node.mjs scripts/build-if-stale.mjs scripts/
COPY docs/ docs/
COPY public/ public/
COPY schemas/ schemas/
COPY bench/README.md bench/
COPY README.md LICENSE CONTRIBUTING.md SECURITY.md ./
# The client is bundled in restock-server's tarball: it installs alone.
RUN npm run build \
  && mkdir /packed \
  && npm pack --pack-destination /packed
WORKDIR /app
RUN echo '{ "name": "restock-image", "private": true }' > package.json \
  && npm install --omit=dev --no-audit --no-fund /packed/restock-server-*.tgz

FROM node:${NODE_VERSION}-slim
COPY --from=build /app/ /app/
# The SQLite driver loads here, in the stage that runs it, or the build stops.
RUN node -e "new (require(require.resolve('better-sqlite3', { paths: ['/app/node_modules/restock-server'] })))(':memory:').close()" \
  && mkdir /data \
  && chown node:node /data
# HOST=0.0.0.0 with no API keys is refused at start (protected mode): give API_KEYS or
# API_KEYS_FILE, or INSECURE_NO_AUTH=true when something in front controls access.
ENV HOST=0.0.0.0 \
  PORT=3000 \
  DATABASE_URL=sqlite:/data/restock.db
VOLUME /data
WORKDIR /data
EXPOSE 3000
USER node
HEALTHCHECK --interval=30s --timeout=5s --start-period=30s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:' + process.env.PORT + '/healthz').then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))"]
# Exec form: node is PID 1 and gets SIGTERM itself, and restock exits 0 on it.
ENTRYPOINT ["node", "--max-semi-space-size=2", "--", "/app/node_modules/restock-server/bin/restock.mjs"]
CMD ["serve"]
