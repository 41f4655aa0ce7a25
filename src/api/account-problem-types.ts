/**
 * The kinds of problem accounts and their flows answer with (sign-in, tokens of mailed
 * links, password changes, provider sign-in, mail): part of ./problem-types.ts's catalog.
 */
export const ACCOUNT_PROBLEM_TYPES = {
  'invalid-token': {
    status: 400,
    title: 'Invalid token',
    description:
      'The token of a verification, password reset or email change link is unknown, used already, superseded by ' +
      'a newer one, expired, or of another collection; the answer never says which. Ask for a new link.',
  },
  'invalid-credentials': {
    status: 401,
    title: 'Invalid credentials',
    description:
      'No account has that name and password, or the refresh token is unknown, expired, used already or revoked. ' +
      'The answer never says which part was wrong.',
  },
  'invalid-current-password': {
    status: 400,
    title: 'The current password is missing or wrong',
    description:
      "An account that changes a password (its own, or one its rules let it change) sends the account's current " +
      'one as `currentPassword` with the new `password`; it was missing or did not match. Only a write key changes ' +
      'a password without it. Nothing was changed.',
  },
  'invalid-provider-flow': {
    status: 400,
    title: 'Invalid provider sign-in',
    description:
      "A provider's callback whose state names no sign-in begun here, or a one-time code that is unknown, " +
      'used already or expired (a code lives 60 seconds, a sign-in 10 minutes): begin the sign-in again.',
  },
  'too-many-sign-ins': {
    status: 429,
    title: 'Too many sign-ins',
    description:
      'This account, or this address, failed to sign in too often lately, or has as many passwords being checked ' +
      '(sign-ins, sign-ups, password changes) as it may, now or in this quarter hour; retry after Retry-After seconds.',
  },
  'mail-unavailable': {
    status: 503,
    title: 'Mail unavailable',
    description:
      'This needs to send mail (a sign-up to verify, a password reset, an email change) and the server has no ' +
      'way to send it (no SMTP_URL); nothing was written. An operator must configure mail.',
  },
} as const satisfies Record<string, { status: number; title: string; description: string }>;
