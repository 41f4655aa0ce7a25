import type { AddressInfo } from 'node:net';
/**
 * The restock process, which ./server.ts loads once the compile cache is on: reads the
 * configuration, builds the app, listens, and shuts down cleanly on SIGTERM or SIGINT (stop
 * accepting, finish in-flight requests, close the database, exit 0).
 */
import { pino } from 'pino';
import { isPrimary, isWorker, superviseWorkers } from './cluster.js';
import { runCommand, serveArguments, servedCollections } from './commands/commands.js';
import { startBanner } from './commands/start-banner.js';
import { ConfigError, helpText, loadConfig } from './config/index.js';
import { flushCompileCache } from './core/compile-cache.js';
import { RedisUnavailableError } from './http/plugins/rate-limit/redis.js';
import { protectedModeRefusal } from './http/protected-mode.js';
import { StoreSetupError, StoreUnavailableError } from './store/store.js';

async function main(): Promise<void> {
  // A command of src/commands/commands.ts, --help or --version; anything else is `serve`, below.
  const exitCode = await runCommand(process.argv.slice(2));
  if (exitCode !== undefined) {
    process.exitCode = exitCode;
    return;
  }
  const { config, help } = loadConfig(serveArguments(process.argv.slice(2)), process.env);
  if (help) {
    process.stdout.write(helpText(servedCollections(config.schemas)));
    return;
  }
  const refusal = protectedModeRefusal({
    host: config.host,
    keyCount: config.apiKeys.length,
    insecureNoAuth: config.insecureNoAuth,
  });
  if (refusal) throw new ConfigError(refusal);
  // On a terminal, one line for the person who started it; the JSON logs are for machines.
  const banner = (port: number) => {
    if (process.stdout.isTTY) process.stdout.write(`${startBanner(config.host, port, config.databaseUrl)}\n`);
  };
  if (isPrimary(config.workers)) {
    superviseWorkers(config.workers, pino({ level: config.logLevel }), banner);
    return;
  }
  // The app is imported here, after the primary of --workers returned: it only supervises,
  // and loading the app's thousand modules held back the fork of every worker.
  const { buildApp } = await import('./http/app.js');
  const app = await buildApp({ config });
  let closing = false;
  const shutdown = (signal: string) => {
    if (closing) return;
    closing = true;
    app.log.info({ signal }, 'shutting down');
    // A client that never reads its response would hold the shutdown forever.
    setTimeout(() => {
      app.log.warn({ afterMs: config.shutdownTimeout }, 'closing the connections still open');
      app.server.closeAllConnections();
    }, config.shutdownTimeout).unref();
    app.close().then(
      () => process.exit(0),
      (error: unknown) => {
        app.log.error({ err: error }, 'shutdown failed');
        process.exit(1);
      },
    );
  };
  process.once('SIGTERM', () => shutdown('SIGTERM'));
  process.once('SIGINT', () => shutdown('SIGINT'));
  await app.listen({ port: config.port, host: config.host }).catch(async (error: unknown) => {
    const refusal = listenRefusal(error, config.host, config.port);
    if (!refusal) throw error;
    await app.close();
    throw new ConfigError(refusal);
  });
  if (!isWorker()) banner((app.server.address() as AddressInfo).port);
  flushCompileCache();
}

/**
 * Why the address cannot be listened on, in one line with the fix, for the mistakes of a
 * setting or of the machine (another process on the port), which a stack trace would bury.
 */
function listenRefusal(error: unknown, host: string, port: number): string | undefined {
  const address = `${host}:${port}`;
  switch ((error as { code?: string }).code) {
    case 'EADDRINUSE':
      return `cannot listen on ${address}: another process uses the port; stop it, or choose another port with PORT or --port`;
    case 'EACCES':
      return `cannot listen on ${address}: a port below 1024 needs privileges; choose a port from 1024 with PORT or --port`;
    case 'EADDRNOTAVAIL':
      return `cannot listen on ${address}: no network interface of this machine has that address; check HOST or --host`;
    default:
      return undefined;
  }
}

main().catch((error: unknown) => {
  const oneLine =
    error instanceof ConfigError || error instanceof StoreSetupError || error instanceof RedisUnavailableError;
  if (oneLine || (error as { code?: string }).code?.startsWith('ERR_PARSE_ARGS')) {
    process.stderr.write(`restock: ${(error as Error).message}\n`);
  } else if (error instanceof StoreUnavailableError) {
    process.stderr.write(`restock: cannot reach the database: ${(error as Error).message}\n`);
  } else {
    process.stderr.write(`restock: could not start: ${(error as Error).stack ?? String(error)}\n`);
  }
  process.exit(1);
});
