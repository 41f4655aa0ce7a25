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
import type { IncomingHttpHeaders } from 'node:http';
import { it } from 'node:test';
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import type { FastifyInstance } from 'fastify';
import { parse as parseYaml } from 'yaml';
import { useExactMultipleOf } from '../../src/core/exact-multiple-of.js';
import { isTunnelled, OVERRIDE_HEADER_NAMES, wireMethod } from '../../src/http/plugins/method-override/index.js';
import { followedResponse } from './openapi-responses.js';

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

interface Exchange {
  wire: string;
  effective: string;
  tunnelled: boolean;
  /** The matched route's URL as registered (`/users/:id/`); none when no route matched. */
  route: string | undefined;
  url: string;
  params: Record<string, string>;
  headers: IncomingHttpHeaders;
  body: unknown;
  status: number;
  responseHeaders: Record<string, unknown>;
  /** The body sent; undefined for a stream (a change feed), which is not read. */
  payload: string | undefined;
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

interface Parameter {
  $ref?: string;
  'x-applies-to'?: string[];
  name: string;
  in: 'path' | 'query' | 'header' | 'cookie';
  required?: boolean;
  style?: string;
  schema?: object;
}
interface Media {
  [type: string]: { schema?: object };
}
interface Response {
  content?: Media;
  headers?: Record<string, { schema?: object }>;
}
interface Operation {
  operationId?: string;
  parameters?: Parameter[];
  requestBody?: { required?: boolean; 'x-applies-to'?: string[]; content: Media };
  /** Each written out, or a `$ref` to one the document shares. */
  responses: Record<string, Response | { $ref: string }>;
}
interface Document {
  paths: Record<string, Record<string, Operation>>;
  components: { parameters?: Record<string, Parameter>; responses?: Record<string, Response> };
}
interface Index {
  collections: Record<string, { list: string; create: string; item: string }>;
}

/** Paths left out of the document on purpose: the reference page and the console, for people. */
const UNDOCUMENTED = /^\/(docs|console)(\/|$)/;

/** The lowercase override header names, as Node delivers them. */
const OVERRIDE_NAMES = OVERRIDE_HEADER_NAMES.map((name) => name.toLowerCase());

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
  const canonical = (path: string, effective: string, body: unknown) => {
    const create = effective === 'POST' ? (Array.isArray(body) ? bulks : singles).get(path) : undefined;
    return create ?? items.get(path) ?? path;
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

type Schemas = ReturnType<typeof compilers>;

/** Validators of the document's schemas: `value` coerces text (parameters, headers), `body` does not. */
function compilers(document: Document) {
  // The schemas reference `#/components/…`: each is compiled beside the document's components.
  const root = JSON.parse(JSON.stringify(document).replaceAll('"$ref":"#/', '"$ref":"restock-openapi#/'));
  const make = (coerceTypes: boolean) => {
    const ajv = new Ajv2020({ strict: false, allErrors: true, coerceTypes, validateFormats: true });
    addFormats.default(ajv);
    // JSON Schema's multipleOf is exact, as the server applies it; Ajv's divides doubles and
    // would refuse 0.07 as a multiple of 0.01, a mismatch of the checker, not of the document.
    useExactMultipleOf(ajv);
    ajv.addSchema({ $id: 'restock-openapi', components: root.components });
    const cache = new Map<string, ValidateFunction>();
    return (schema: object | undefined): ValidateFunction => {
      const rewritten = JSON.parse(JSON.stringify(schema ?? {}).replaceAll('"$ref":"#/', '"$ref":"restock-openapi#/'));
      const wrapped = { type: 'object', properties: { value: rewritten } };
      const key = JSON.stringify(wrapped);
      const known = cache.get(key) ?? ajv.compile(wrapped);
      cache.set(key, known);
      return known;
    };
  };
  const value = make(true);
  const body = make(false);
  const errorsOf = (validate: ValidateFunction, data: unknown) =>
    validate({ value: data }) ? undefined : ajvErrors(validate);
  return {
    value: (schema: object | undefined, data: unknown) => errorsOf(value(schema), data),
    body: (schema: object | undefined, data: unknown) => errorsOf(body(schema), data),
  };
}

const ajvErrors = (validate: ValidateFunction) =>
  (validate.errors ?? [])
    .map((error) => `${error.instancePath.replace('/value', '') || '/'} ${error.message}`)
    .join(', ');

/** What the document refuses in the request: its parameters, and its body. */
function requestErrors(
  exchange: Exchange,
  operation: Operation,
  resolve: (parameter: Parameter) => Parameter,
  schemas: Schemas,
): string[] {
  const errors: string[] = [];
  const query = queryValues(exchange.url, operation.parameters?.map(resolve) ?? []);
  const headers = normalizedOverride(exchange.headers);
  // A part of a merged operation that only some methods take (`x-applies-to`) is ignored by the others.
  const applies = (part: { 'x-applies-to'?: string[] }) => part['x-applies-to']?.includes(exchange.effective) ?? true;
  for (const parameter of (operation.parameters ?? []).map(resolve).filter(applies)) {
    const values =
      parameter.in === 'path'
        ? [exchange.params[parameter.name]]
        : parameter.in === 'query'
          ? (query.get(parameter.name) ?? [])
          : parameter.in === 'header'
            ? [headerText(headers[parameter.name.toLowerCase()])]
            : [];
    const present = values.filter((value) => value !== undefined);
    if (present.length === 0 && parameter.required) errors.push(`${parameter.in} ${parameter.name} is required`);
    for (const value of present) {
      const broken = schemas.value(parameter.schema, value);
      if (broken) errors.push(`${parameter.in} ${parameter.name} ${JSON.stringify(value)}: ${broken}`);
    }
  }
  const { requestBody } = operation;
  if (requestBody && applies(requestBody)) {
    const type = mediaType(exchange.headers['content-type']);
    const sent = exchange.body !== undefined;
    if (!sent && requestBody.required) errors.push('a body is required');
    const media = type ? mediaOf(requestBody.content, type) : undefined;
    if (sent && !media) errors.push(`a body of type ${type} is not documented`);
    const broken = sent && media ? schemas.body(media.schema, exchange.body) : undefined;
    if (broken) errors.push(`body: ${broken}`);
  }
  return errors;
}

/**
 * The server reads the three override headers alike, in any case and with blanks around
 * the method; a tunnelled operation can require only one name (OpenAPI has no "one of
 * these headers"), and the document spells methods in capitals. So each is read as the
 * server reads it, and the first name stands for whichever the request sent.
 */
function normalizedOverride(headers: IncomingHttpHeaders): IncomingHttpHeaders {
  const normalized: IncomingHttpHeaders = { ...headers };
  for (const name of OVERRIDE_NAMES) {
    const value = headers[name];
    if (value !== undefined) normalized[name] = headerText(value)?.trim().toUpperCase();
  }
  const sent = OVERRIDE_NAMES.map((name) => normalized[name]).find((value) => value !== undefined);
  normalized[OVERRIDE_NAMES[0] as string] ??= sent;
  return normalized;
}

const headerText = (value: string | string[] | undefined) => (Array.isArray(value) ? value.join(', ') : value);

/**
 * The query's values by documented parameter: a deepObject parameter gathers its
 * `name[op]=value` pairs into one object, and may also come as `name=value` (its plain
 * form, which the schema allows); a name given twice gives a list.
 */
function queryValues(url: string, parameters: readonly Parameter[]): Map<string, unknown[]> {
  const deep = new Set(parameters.filter((p) => p.in === 'query' && p.style === 'deepObject').map((p) => p.name));
  const plain = new Map<string, string[]>();
  const objects = new Map<string, Record<string, string | string[]>>();
  const search = url.includes('?') ? url.slice(url.indexOf('?') + 1) : '';
  for (const [key, value] of new URLSearchParams(search)) {
    const bracketed = /^([^[\]]+)\[([^[\]]*)\]$/.exec(key);
    if (bracketed?.[1] && deep.has(bracketed[1])) {
      const object = objects.get(bracketed[1]) ?? {};
      const before = object[bracketed[2] ?? ''];
      object[bracketed[2] ?? ''] = before === undefined ? value : [before, value].flat();
      objects.set(bracketed[1], object);
    } else {
      plain.set(key, [...(plain.get(key) ?? []), value]);
    }
  }
  const values = new Map<string, unknown[]>();
  for (const name of new Set([...plain.keys(), ...objects.keys()])) {
    const texts = plain.get(name) ?? [];
    const asGiven = deep.has(name) ? texts : texts.length > 1 ? [texts] : texts;
    values.set(name, [...asGiven, ...(objects.has(name) ? [objects.get(name)] : [])]);
  }
  return values;
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

const mediaType = (header: string | undefined) => header?.split(';')[0]?.trim().toLowerCase() || undefined;
const isJson = (type: string) => /^application\/(?:[\w.-]+\+)?json$/.test(type);

/** The documented media type `type` falls under: itself, or a range (`application/*+json`, `application/*`). */
function mediaOf(content: Media, type: string) {
  const [major] = type.split('/');
  const suffix = /\+[\w.-]+$/.exec(type)?.[0];
  return content[type] ?? (suffix && content[`${major}/*${suffix}`]) ?? content[`${major}/*`] ?? content['*/*'];
}
