/**
 * Keeping the change log to EVENTS_RETENTION_HOURS: every instance trims it now and then
 * (each trim is a few short deletes, and trims by several instances at once only find less
 * to do), as the Idempotency-Key sweep does for keys.
 */
import type { FastifyInstance } from 'fastify';
import type { ChangeLog } from '../../../store/store.js';

/** How often the log is trimmed. */
const TRIM_EVERY_MS = 10 * 60 * 1000;

export function registerChangeLogTrim(app: FastifyInstance, log: ChangeLog, retentionHours: number): void {
  const trim = () =>
    log
      .trim(new Date(Date.now() - retentionHours * 3_600_000))
      .then((trimmed) => {
        if (trimmed > 0) app.log.info({ trimmed }, 'trimmed the change log');
      })
      .catch((error: unknown) => app.log.warn({ err: error }, 'could not trim the change log'));
  let timer: NodeJS.Timeout | undefined;
  app.addHook('onReady', async () => {
    void trim();
    timer = setInterval(trim, TRIM_EVERY_MS);
    timer.unref();
  });
  app.addHook('onClose', async () => clearInterval(timer));
}
