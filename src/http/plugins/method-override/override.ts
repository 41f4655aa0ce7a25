/**
 * The override itself: which headers carry it, which values they may hold, and the rewrite
 * of a raw request to its effective method, remembering the wire method (or the problem).
 */
import type { IncomingMessage } from 'node:http';
import { OVERRIDE_HEADER_NAMES } from '../../../api/methods.js';
import type { OverrideWireMethods } from '../../../config/index.js';
import { HttpProblem } from '../../problem.js';

/** The request headers that carry an override (src/api/methods.ts), lower-cased as Node delivers them. */
export const OVERRIDE_HEADERS = ['http-x-http-method', 'x-http-method', 'x-http-method-override'] as const;

const ACCEPTED_VALUES = ['GET', 'POST', 'PUT', 'DELETE', 'PATCH'] as const;

const wireMethodKey = Symbol('restock.wireMethod');
const overrideErrorKey = Symbol('restock.overrideError');

interface OverridableRequest extends IncomingMessage {
  [wireMethodKey]?: string;
  [overrideErrorKey]?: HttpProblem;
}

/**
 * Rewrites `req.method` to the effective method before routing. Runs in Fastify's
 * `rewriteUrl` callback, the one place that sees the raw request before the router does
 * (for real sockets and `inject` alike). A bad override is remembered, not thrown, and
 * raised by {@link overrideError} from a hook (./index.ts), so it becomes a normal problem
 * response.
 */
export function applyMethodOverride(req: IncomingMessage, allowed: OverrideWireMethods): void {
  const request = req as OverridableRequest;
  const wire = request.method ?? 'GET';
  const values: string[] = [];
  for (const name of OVERRIDE_HEADERS) {
    const header = request.headers[name];
    if (header === undefined) continue;
    for (const item of (Array.isArray(header) ? header.join(',') : header).split(',')) values.push(item);
  }
  if (values.length === 0) return;

  const wanted = new Set(values.map((value) => value.trim().toUpperCase()));
  const [effective] = wanted;
  if (allowed.size === 0) {
    request[overrideErrorKey] = invalid('method override is turned off on this server');
  } else if (wire !== 'GET' && wire !== 'POST') {
    request[overrideErrorKey] = invalid(`an override header may only be sent with ${describe(allowed)}, not ${wire}`);
  } else if (!allowed.has(wire)) {
    request[overrideErrorKey] = invalid(`this server accepts an override header only with ${describe(allowed)}`);
  } else if (wanted.size > 1) {
    request[overrideErrorKey] = invalid(`the override headers disagree (${[...wanted].join(', ')})`);
  } else if (!effective || !(ACCEPTED_VALUES as readonly string[]).includes(effective)) {
    request[overrideErrorKey] = invalid(`"${values[0]?.trim() ?? ''}" is not a method that can be tunnelled`);
  } else {
    request[wireMethodKey] = wire;
    request.method = effective;
  }
}

function describe(allowed: OverrideWireMethods): string {
  return [...allowed].join(' or ');
}

function invalid(reason: string): HttpProblem {
  return new HttpProblem(
    'invalid-method-override',
    `${reason}. Send one of ${ACCEPTED_VALUES.join(', ')} in ${OVERRIDE_HEADER_NAMES.join(', ')} ` +
      'on a GET or POST request.',
  );
}

/** The override problem found before routing, if any. */
export function overrideError(req: IncomingMessage): HttpProblem | undefined {
  return (req as OverridableRequest)[overrideErrorKey];
}

/** The method the request arrived with on the wire (differs from `req.method` when tunnelled). */
export function wireMethod(req: IncomingMessage): string {
  return (req as OverridableRequest)[wireMethodKey] ?? req.method ?? 'GET';
}

/** Whether the request was tunnelled through an override header. */
export function isTunnelled(req: IncomingMessage): boolean {
  return (req as OverridableRequest)[wireMethodKey] !== undefined;
}
