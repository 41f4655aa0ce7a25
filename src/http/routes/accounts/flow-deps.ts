/** What the routes of accounts' flows (reset, email change, who am I) are given, per server. */
import type { Catalog } from '../../../core/catalog.js';
import type { FailureCounts, PasswordHasher, TokenService } from '../../../records/accounts/index.js';
import type { MailQueue } from '../../../records/operations/index.js';
import type { Store } from '../../../store/store.js';

export interface FlowDeps {
  readonly store: Store;
  readonly catalog: Catalog;
  readonly tokens: TokenService;
  readonly hasher: PasswordHasher;
  /** Reset requests, counted per address asked for and per client address (as failed sign-ins are). */
  readonly resetRequests: FailureCounts;
  /** Reset requests allowed per address asked for, and per client address, in 15 minutes (SIGN_IN_MAX_FAILURES). */
  readonly maxResetRequests: number;
  /** Whether mail can go out (without it, a reset request is 503), and how the sender is woken once some is queued. */
  readonly mail: MailQueue;
}
