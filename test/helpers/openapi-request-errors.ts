/**
 * What the document refuses in a request, for the contract checker (./openapi-validator.ts):
 * its parameters (path, query as OpenAPI's styles write it, headers, the override header read
 * as the server reads it) and its body, by the content type it came as.
 */
import type { IncomingHttpHeaders } from 'node:http';
import { OVERRIDE_HEADER_NAMES } from '../../src/api/methods.js';
import type { Schemas } from './openapi-schemas.js';

/** One request and its answer, as the checker sees them. */
export interface Exchange {
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

export interface Parameter {
  $ref?: string;
  'x-applies-to'?: string[];
  name: string;
  in: 'path' | 'query' | 'header' | 'cookie';
  required?: boolean;
  style?: string;
  schema?: object;
}
export interface Media {
  [type: string]: { schema?: object };
}
export interface Response {
  content?: Media;
  headers?: Record<string, { schema?: object }>;
}
export interface Operation {
  operationId?: string;
  parameters?: Parameter[];
  requestBody?: { required?: boolean; 'x-applies-to'?: string[]; content: Media };
  /** Each written out, or a `$ref` to one the document shares. */
  responses: Record<string, Response | { $ref: string }>;
}
export interface Document {
  paths: Record<string, Record<string, Operation>>;
  components: { parameters?: Record<string, Parameter>; responses?: Record<string, Response> };
}

/** The lowercase override header names, as Node delivers them. */
const OVERRIDE_NAMES = OVERRIDE_HEADER_NAMES.map((name) => name.toLowerCase());

/** What the document refuses in the request: its parameters, and its body. */
export function requestErrors(
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
    // A multipart body's parts are read by its route as they stream, never parsed into
    // request.body: its media type is checked, not its parts.
    const sent = exchange.body !== undefined || type === 'multipart/form-data';
    if (!sent && requestBody.required) errors.push('a body is required');
    const media = type ? mediaOf(requestBody.content, type) : undefined;
    if (sent && !media) errors.push(`a body of type ${type} is not documented`);
    const broken = exchange.body !== undefined && media ? schemas.body(media.schema, exchange.body) : undefined;
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

export const headerText = (value: string | string[] | undefined) => (Array.isArray(value) ? value.join(', ') : value);

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

export const mediaType = (header: string | undefined) => header?.split(';')[0]?.trim().toLowerCase() || undefined;
export const isJson = (type: string) => /^application\/(?:[\w.-]+\+)?json$/.test(type);

/** The documented media type `type` falls under: itself, or a range (`application/*+json`, `application/*`). */
export function mediaOf(content: Media, type: string) {
  const [major] = type.split('/');
  const suffix = /\+[\w.-]+$/.exec(type)?.[0];
  return content[type] ?? (suffix && content[`${major}/*${suffix}`]) ?? content[`${major}/*`] ?? content['*/*'];
}
