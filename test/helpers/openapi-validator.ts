/**
 * Contract checking in process: every request a suite sends to an app and every answer the
 * app gives are checked against the app's own OpenAPI document (/openapi.json), as a
 * validating proxy in front of it would check them. Two kinds of mismatch are recorded:
 *
 * - an answer that breaks the document: a status, content type, body or header it does not
 *   describe for the operation, to a request the document allows;
 * - a request restock accepts (below 400) that the document refuses or does not list.
 *
 * A request the document refuses and restock refuses too (a 4xx) agrees with it, whatever
 * the status, and so does a refusal of a path or method the document does not list.
 */
import assert from 'node:assert/strict';
import { it } from 'node:test';
import type { FastifyInstance } from 'fastify';
import { parse as parseYaml } from 'yaml';
import { isTunnelled, wireMethod } from '../../src/http/plugins/method-override/index.js';
import {
  type Document,
  type Exchange,
  isJson,
  mediaOf,
  mediaType,
  type Parameter,
  type Response,
  requestErrors,
} from './openapi-request-errors.js';
import { followedResponse } from './openapi-responses.js';
import { compilers, type Schemas } from './openapi-schemas.js';

export interface ContractRecorder {
  /** Each mismatch between an exchange and the document, one line each. */
  readonly violations: string[];
  /** How many exchanges were matched to a documented operation and checked against it. */
  readonly checked: number;
  /** Each exchange matched to a documented operation, as `operationId status`, in order. */
  readonly matched: string[];
  /** Each exchange matched to a documented operation, with what the document refuses in its request (none: valid). */
  readonly outcomes: { operation: string; status: number; refused: readonly string[] }[];
  /** Reads the app's document and index; call once the app is ready. Exchanges before it are checked then. */
  load(): Promise<void>;
}

/** Adds a hook to `app` (before it is ready) that records every exchange for checking. */
export function checkAgainstDocument(app: FastifyInstance): ContractRecorder {
  const pending: Exchange[] = [];
  let check: ((exchange: Exchange) => Outcome) | undefined;
  const recorder = {
    violations: [] as string[],
    checked: 0,
    matched: [] as string[],
    outcomes: [] as ContractRecorder['outcomes'],
    load,
  };
  const run = (exchange: Exchange) => {
    const outcome = check?.(exchange);
    if (outcome?.violation) recorder.violations.push(outcome.violation);
    if (outcome?.matched) {
      recorder.checked++;
      recorder.matched.push(`${outcome.matched} ${exchange.status}`);
      recorder.outcomes.push({ operation: outcome.matched, status: exchange.status, refused: outcome.refused ?? [] });
    }
  };
  app.addHook('onSend', (request, reply, payload, done) => {
    const exchange: Exchange = {
      wire: wireMethod(request.raw),
      effective: request.method,
      tunnelled: isTunnelled(request.raw),
      route: request.routeOptions.url,
      url: request.url,
      params: request.params as Record<string, string>,
      headers: request.headers,
      body: request.body,
      status: reply.statusCode,
      responseHeaders: reply.getHeaders(),
      payload: payloadText(payload),
    };
    if (check) run(exchange);
    else pending.push(exchange);
    done(null, payload);
  });
  async function load() {
    const document = JSON.parse((await app.inject({ url: '/openapi.json' })).body) as Document;
    const index = JSON.parse((await app.inject({ url: '/', headers: { accept: 'application/json' } })).body) as Index;
    check = checker(document, index);
    for (const exchange of pending.splice(0)) run(exchange);
  }
  return recorder;
}

/** The body as sent: text, none (''), or undefined for a stream, which this never reads. */
function payloadText(payload: unknown): string | undefined {
  if (typeof payload === 'string') return payload;
  if (Buffer.isBuffer(payload)) return payload.toString();
  return payload === null || payload === undefined ? '' : undefined;
}

/** Registers, where it is called (last in a suite), the test that the suite's exchanges kept the document. */
export function itKeptTheDocument(context: { contract?: ContractRecorder }): void {
  it('answered every request as its OpenAPI document says, and accepted only what it allows', () => {
    const contract = context.contract;
    assert.ok(contract, 'the app was built with contract checking');
    assert.ok(contract.checked > 0, 'some exchanges were checked');
    assert.deepEqual(contract.violations, []);
  });
}

/** What checking one exchange found: the operation it was checked against, and any mismatch. */
interface Outcome {
  matched?: string;
  violation?: string;
  /** What the document refuses in the request. */
  refused?: string[];
}

interface Index {
  collections: Record<string, { list: string; create: string; item: string }>;
}

/** Paths left out of the document on purpose: the reference page and the console, for people. */
const UNDOCUMENTED = /^\/(docs|console)(\/|$)/;

function checker(document: Document, index: Index) {
  const schemas = compilers(document);
  // The plural item alias is left out of the document: `/users/7/` is `/user/7/`. Either
  // create path takes one record or an array; the document has one record at `/user/` and
  // an array at `/users/`, so a create is checked against the form its body is. Trailing
  // slashes need nothing: the route matched is the one registered with its slash.
  const items = new Map<string, string>();
  const singles = new Map<string, string>();
  const bulks = new Map<string, string>();
  for (const [plural, collection] of Object.entries(index.collections)) {
    items.set(`/${plural}/{id}/`, collection.item);
    singles.set(collection.list, collection.create);
    bulks.set(collection.create, collection.list);
  }
  // Below a record's path (its files), the plural alias stands for the singular too.
  const below = (path: string) => {
    const item = [...items.keys()].find((alias) => path.startsWith(alias));
    return item === undefined ? undefined : `${items.get(item)}${path.slice(item.length)}`;
  };
  const canonical = (path: string, effective: string, body: unknown) => {
    const create = effective === 'POST' ? (Array.isArray(body) ? bulks : singles).get(path) : undefined;
    return create ?? items.get(path) ?? below(path) ?? path;
  };
  const resolve = (parameter: Parameter) =>
    parameter.$ref ? (document.components.parameters?.[parameter.$ref.split('/').pop() ?? ''] as Parameter) : parameter;

  return (exchange: Exchange): Outcome => {
    const { wire, effective, status } = exchange;
    const what = `${exchange.tunnelled ? `${wire} carrying ${effective}` : wire} ${exchange.url} → ${status}`;
    if (wire === 'OPTIONS' || effective === 'OPTIONS') return {};
    if (exchange.route === undefined || UNDOCUMENTED.test(exchange.route)) return {};
    const path = canonical(exchange.route.replace(/:(\w+)/g, '{$1}'), effective, exchange.body);
    // A tunnelled request is the operation of its wire method: that is what a proxy sees.
    const operation = document.paths[path]?.[wire.toLowerCase()];
    if (!operation) {
      return status < 400 ? { violation: `${what}: accepted, but the document has no such operation` } : {};
    }
    const matched = operation.operationId ?? `${wire} ${path}`;
    const refused = requestErrors(exchange, operation, resolve, schemas);
    if (refused.length > 0) {
      const violation = `${what}: accepted a request the document refuses: ${refused.join('; ')}`;
      return status < 400 ? { matched, violation, refused } : { matched, refused };
    }
    const documented = operation.responses[String(status)] ?? operation.responses.default;
    const broken = responseErrors(
      exchange,
      documented && followedResponse(document, documented),
      schemas,
      wire === 'HEAD',
    );
    return broken.length > 0 ? { matched, violation: `${what} (${matched}): ${broken.join('; ')}` } : { matched };
  };
}

/** What in the answer the document does not describe for its status (`documented`, the response it lists for it). */
function responseErrors(
  exchange: Exchange,
  documented: Response | undefined,
  schemas: Schemas,
  head: boolean,
): string[] {
  if (!documented) return [`status ${exchange.status} is not documented`];
  const errors: string[] = [];
  for (const [name, header] of Object.entries(documented.headers ?? {})) {
    const value = exchange.responseHeaders[name.toLowerCase()];
    const broken = value === undefined ? undefined : schemas.value(header.schema, String(value));
    if (broken) errors.push(`header ${name} ${JSON.stringify(value)}: ${broken}`);
  }
  if (head || exchange.payload === undefined) return errors;
  const type = mediaType(exchange.responseHeaders['content-type'] as string | undefined);
  if (!documented.content) {
    if (exchange.payload !== '') errors.push(`a body where none is documented: ${exchange.payload.slice(0, 200)}`);
    return errors;
  }
  const media = type ? mediaOf(documented.content, type) : undefined;
  if (!media) return [...errors, `content type ${type} is not documented`];
  let body: unknown = exchange.payload;
  const parse =
    type && isJson(type)
      ? (text: string) => JSON.parse(text)
      : type === 'application/yaml'
        ? (text: string) => parseYaml(text)
        : undefined;
  if (parse) {
    try {
      body = parse(exchange.payload);
    } catch {
      return [...errors, `the ${type} body does not parse`];
    }
  }
  const broken = schemas.body(media.schema, body);
  if (broken) errors.push(`body: ${broken}: ${exchange.payload.slice(0, 300)}`);
  return errors;
}
