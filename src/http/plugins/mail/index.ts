/**
 * The mail outbox's drain in the server: started once the server listens (links name its
 * port, which may be chosen then), stopped as it closes (mail being sent is sent first;
 * what is left waits in the outbox for the next start). `/metrics` shows the mail waiting.
 */
import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import { Gauge } from 'prom-client';
import type { MailDrain } from '../../../records/mail/index.js';
import type { MailOutbox } from '../../../store/mail-model.js';

export interface MailOptions {
  outbox: MailOutbox;
  /** Absent when mail is unavailable (no SMTP_URL, no MAIL_LOG_LINKS): what waits stays. */
  drain?: MailDrain | undefined;
}

export const mail = fp(serveMail, {
  name: 'restock-mail',
  fastify: '5.x',
  dependencies: ['restock-metrics'],
});

async function serveMail(app: FastifyInstance, { outbox, drain }: MailOptions): Promise<void> {
  const { registry, prefix } = app.metricsRegistry;
  new Gauge({
    name: `${prefix}mail_outbox_pending`,
    help: 'Mails in the outbox, waiting to be sent or tried again, of every instance.',
    registers: [registry],
    async collect() {
      this.set(await outbox.pending());
    },
  });
  if (!drain) return;
  app.addHook('onListen', async () => drain.start());
  app.addHook('preClose', async () => drain.stop());
}
