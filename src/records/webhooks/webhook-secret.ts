/**
 * Webhook secrets in the Standard Webhooks form: `whsec_` and the key in base64. The
 * receiver's library (any of Standard Webhooks') reads the same text.
 */
import { randomBytes } from 'node:crypto';

const PREFIX = 'whsec_';
/** Under 24 bytes a key is weaker than it should be; over 64 (SHA-256's block) HMAC hashes it down, so more adds nothing. */
const MIN_BYTES = 24;
const MAX_BYTES = 64;
/** Standard base64 with its padding, as the libraries decode it (Buffer alone would take anything). */
const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;

/** A new secret: 32 random bytes. */
export function newWebhookSecret(): string {
  return `${PREFIX}${randomBytes(32).toString('base64')}`;
}

/** Whether `text` is a secret restock signs with: `whsec_` and base64 of 24 to 64 bytes. */
export function isWebhookSecret(text: unknown): text is string {
  if (typeof text !== 'string' || !text.startsWith(PREFIX)) return false;
  const key = text.slice(PREFIX.length);
  if (!BASE64.test(key)) return false;
  const bytes = Buffer.from(key, 'base64').length;
  return bytes >= MIN_BYTES && bytes <= MAX_BYTES;
}
