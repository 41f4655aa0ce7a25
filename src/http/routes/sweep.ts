/** A sweep of what has expired, run now and then while the app runs (every instance may: each is idempotent). */
import type { FastifyInstance } from 'fastify';

/** Runs `sweep` once the app is ready and every `everyMs` after, until it closes; `what` names it in logs. */
export function registerSweep(app: FastifyInstance, what: string, everyMs: number, sweep: () => Promise<number>) {
  let timer: NodeJS.Timeout | undefined;
  const run = () => {
    sweep().then(
      (count) => {
        if (count > 0) app.log.info({ count }, `expired ${what} swept`);
      },
      (error: unknown) => app.log.warn({ err: error }, `sweeping ${what} failed; trying again later`),
    );
  };
  app.addHook('onReady', async () => {
    run();
    timer = setInterval(run, everyMs).unref();
  });
  app.addHook('onClose', async () => clearInterval(timer));
}
