/**
 * A failed delivery in one short line, kept with it and shown to whoever manages the
 * webhook. Built only from what the receiver and the network said: never from the request,
 * so no secret or signature can end up in one.
 */
import type { IncomingMessage } from 'node:http';
import { ADDRESS_REFUSED } from './webhook-address.js';

/** How much of a failing answer's body, or of a redirect's target, the line quotes. */
const QUOTED_CHARS = 200;

/** Errors of the network by their code, in words. */
const NETWORK_ERRORS: Record<string, string> = {
  ECONNREFUSED: 'connection refused',
  ECONNRESET: 'connection reset',
  EPIPE: 'connection closed while sending',
  ENOTFOUND: 'host not found',
  EAI_AGAIN: 'host name lookup failed (temporary)',
  EHOSTUNREACH: 'host unreachable',
  ENETUNREACH: 'network unreachable',
  ETIMEDOUT: 'connection timed out',
  ECONNABORTED: 'connection aborted',
  ERR_INVALID_URL: 'invalid URL',
};

/** An error of the socket, the lookup or TLS as a line: its meaning for the common codes, else its message. */
export function failureText(error: unknown): string {
  const { code, message } = (error ?? {}) as { code?: unknown; message?: unknown };
  if (code === ADDRESS_REFUSED) return String(message);
  if (typeof code === 'string' && code in NETWORK_ERRORS) return NETWORK_ERRORS[code] as string;
  const text = typeof message === 'string' && message !== '' ? message : String(code ?? error);
  return quoted(typeof code === 'string' && !text.includes(code) ? `${code}: ${text}` : text);
}

/**
 * The failure an answer is, or undefined for a 2xx. A redirect is a failure and never
 * followed: its target would escape the check of the webhook's address, and a POST's
 * body and signature would go where the webhook's owner never named.
 */
export function answerFailure(
  answer: IncomingMessage,
  body: string,
): { ok: false; status: number; error: string } | undefined {
  const status = answer.statusCode ?? 0;
  if (status >= 200 && status < 300) return undefined;
  if (status >= 300 && status < 400) {
    const location = answer.headers.location;
    const to = location ? ` to ${quoted(location)}` : '';
    return { ok: false, status, error: `redirects are not followed (${status}${to})` };
  }
  const snippet = quoted(body);
  return { ok: false, status, error: `HTTP ${status}${snippet === '' ? '' : `: ${snippet}`}` };
}

/** `15 s` for whole seconds, `200 ms` otherwise. */
export function timeText(ms: number): string {
  return ms % 1000 === 0 ? `${ms / 1000} s` : `${ms} ms`;
}

/** Text on one line (controls and runs of blanks as one space), cut to its first characters. */
function quoted(text: string): string {
  const line = text.replace(/[\p{Cc}\s]+/gu, ' ').trim();
  const chars = [...line];
  return chars.length > QUOTED_CHARS ? `${chars.slice(0, QUOTED_CHARS).join('')}…` : line;
}
