/**
 * Flows' single-use tokens (verification, reset, email change): made and hashed as refresh
 * tokens are, 32 random bytes, base64url, handed out once (in a mail's link) and stored
 * only as their SHA-256 (base64url).
 */
export { newRefreshToken as mintFlowToken, refreshTokenHash as flowTokenHash } from '../refresh-tokens.js';
