/** What a webhook's run (./webhook-run.ts) is given: the store, the hub, the sender, its caps and where it reports. */
import type { Catalog } from '../../core/catalog.js';
import type { WebhookTables } from '../../store/webhook-model.js';
import type { ChangeHubs } from '../change-hub.js';
import type { WebhookMetrics } from './delivery-outcomes.js';
import type { DeliverySlots } from './delivery-slots.js';
import type { SendOutcome, SendTarget } from './webhook-sender.js';

export interface RunSettings {
  readonly perWebhook: number;
  /** Changes a lane takes ahead of its place. */
  readonly window: number;
  readonly maxBodyBytes: number;
  readonly backoffMs: number;
  readonly retryMs: number;
  readonly timeoutMs: number;
  /** The most time between a settle and the store hearing of it. */
  readonly flushMs: number;
  readonly maxFieldNameLength: number;
}

export interface RunLog {
  info(details: object, message: string): void;
  warn(details: object, message: string): void;
}

export interface RunDeps {
  readonly tables: Pick<WebhookTables, 'positions' | 'open' | 'deliveries' | 'settle' | 'pause'>;
  readonly hubs: Pick<ChangeHubs, 'subscribe'>;
  readonly catalog: Pick<Catalog, 'byPlural'>;
  readonly send: (target: SendTarget, message: { messageId: string; body: string }) => Promise<SendOutcome>;
  readonly slots: DeliverySlots;
  readonly settings: RunSettings;
  readonly owner: string;
  readonly metrics: WebhookMetrics;
  readonly log: RunLog;
  readonly now: () => number;
  /** The run went as far as it can as it is (stale, paused, the log failed): the worker looks again. */
  readonly ended: (id: number) => void;
}
