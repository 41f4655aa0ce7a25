/** Webhooks' delivery, one message at a time: where it may go, what it says, and how it is sent. */
export {
  ADDRESS_REFUSED,
  addressRange,
  checkWebhookUrl,
  guardedLookup,
  isPublicAddress,
  refusedAddress,
} from './webhook-address.js';
export { type WebhookMessage, webhookMatches, webhookMessage } from './webhook-body.js';
export { isWebhookSecret, newWebhookSecret } from './webhook-secret.js';
export { type SendOutcome, type SendTarget, WebhookSender, type WebhookSenderOptions } from './webhook-sender.js';
