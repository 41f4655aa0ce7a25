/**
 * The tunnelled forms of each collection's operations, in the document: a client that can
 * only send POST (or GET, when METHOD_OVERRIDE allows it) names the method it means in
 * the override header, and the request is then that method's operation. A validating
 * proxy or a generated client only knows what the document lists, so each form the server
 * takes is listed, built from the operations it carries.
 *
 * OpenAPI allows one operation per path and method. So `POST /user/{id}/` is one operation
 * (`tunnelUser`) whatever its header carries, GET, PUT, PATCH or DELETE: its parameters
 * and bodies are theirs, and its answers the union of theirs. Generators make one function
 * of it whose header argument is an enum, rather than several functions they could not tell
 * apart by path and method. Where the wire method already has an operation on the path
 * (`GET /user/{id}/`, which GET may carry PUT, PATCH or DELETE to), that operation is
 * widened the same way, with its header left optional: without it, it is itself.
 */
import type { OverrideWireMethods } from '../../config/index.js';
import type { Collection } from '../../core/collection.js';
import { overrideReferences, tunnelParameter, tunnelParameterName } from './override-parameters.js';
import { componentNames } from './record-components.js';
import { problemDescription, problemKindsIn } from './responses.js';

type Method = 'get' | 'put' | 'post' | 'patch' | 'delete';
const METHODS: readonly Method[] = ['get', 'put', 'post', 'patch', 'delete'];
/** The wire methods that may carry the header, in the order their forms are added. */
const WIRE_METHODS: readonly Method[] = ['post', 'get'];

interface Parameter {
  $ref?: string;
  in?: string;
  name?: string;
  required?: boolean;
  description?: string;
}
interface Content {
  [mediaType: string]: { schema?: unknown };
}
interface Response {
  description: string;
  headers?: Record<string, unknown>;
  content?: Content;
}
export interface Operation {
  operationId?: string;
  summary?: string;
  description?: string;
  tags?: string[];
  parameters?: Parameter[];
  requestBody?: { required?: boolean; description?: string; content: Content };
  responses: Record<string, Response>;
}
type PathItem = Partial<Record<Method, Operation>>;
interface Document {
  paths?: Record<string, PathItem>;
  components?: { parameters?: Record<string, unknown> };
}

/** One operation a tunnelled form carries, with the method that names it. */
type Carried = [Method, Operation];

/** Adds the tunnelled form of each collection path to `document`, for the wire methods `allowed`. */
export function documentTunnels(
  openapi: object,
  collections: readonly Collection[],
  allowed: OverrideWireMethods,
): void {
  const document = openapi as Document;
  document.components = { ...document.components, parameters: { ...document.components?.parameters } };
  const { parameters } = document.components as { parameters: Record<string, unknown> };
  for (const collection of collections) {
    const { plural, singular } = collection;
    for (const path of [`/${plural}/`, `/${plural}/events/`, `/${singular}/`, `/${singular}/{id}/`]) {
      const item = document.paths?.[path];
      if (!item) continue;
      // The operations sent directly, before any tunnelled form joins them on the path.
      const direct = METHODS.flatMap((method): Carried[] => (item[method] ? [[method, item[method]]] : []));
      for (const wire of WIRE_METHODS.filter((method) => allowed.has(method.toUpperCase() as 'GET' | 'POST'))) {
        const carried = direct.filter(([method]) => method !== wire);
        if (carried.length === 0) continue;
        const own = direct.find(([method]) => method === wire);
        if (own) {
          item[wire] = widened(own, carried);
        } else {
          const methods = carried.map(([method]) => method.toUpperCase());
          parameters[tunnelParameterName(methods)] ??= tunnelParameter(methods);
          item[wire] = tunnel(collection, wire, carried);
        }
      }
    }
  }
}

/** A form of its own: `wire` with the header required, naming one of `carried`. */
function tunnel(collection: Pick<Collection, 'singular'>, wire: Method, carried: readonly Carried[]): Operation {
  const methods = carried.map(([method]) => method.toUpperCase());
  const [[, first]] = carried as [Carried];
  const header = { $ref: `#/components/parameters/${tunnelParameterName(methods)}` };
  const names = carried.map(([, operation]) => operation.operationId).join(', ');
  // One operation carried: named after it (listUsersTunnelled); several: after the record (tunnelUser).
  const single = carried.length === 1;
  return {
    operationId: single ? `${first.operationId}Tunnelled` : `tunnel${componentNames(collection).record}`,
    summary: single
      ? `${first.summary} (${methods[0]} tunnelled through ${wire.toUpperCase()})`
      : `${listed(methods, 'or')} a ${collection.singular}, tunnelled through ${wire.toUpperCase()}`,
    tags: first.tags ?? [],
    description:
      `For clients that can only send ${wire.toUpperCase()}: the header names the method meant ` +
      `(${listed(methods, 'or')}), and the request is then handled and answered exactly as ${names}. ` +
      'Tunnelled responses are never cached (Cache-Control: no-store).',
    ...merged(carried, [header, ...overrideReferences.slice(1)]),
  };
}

/** The wire method's own operation, which the header may turn into any of `carried`. */
function widened([wire, own]: Carried, carried: readonly Carried[]): Operation {
  const methods = carried.map(([method]) => method.toUpperCase());
  const names = carried.map(([, operation]) => operation.operationId).join(', ');
  const description =
    `With the override header naming ${listed(methods, 'or')}, this request is ${names} instead, ` +
    "with that operation's body and answers (for clients that can only send " +
    `${wire.toUpperCase()}; never cached).`;
  return {
    ...own,
    description: own.description ? `${own.description} ${description}` : description,
    ...merged([[wire, own], ...carried], overrideReferences),
  };
}

/** The parameters, body and answers of several operations as one operation's. */
function merged(
  parts: readonly Carried[],
  headers: readonly Parameter[],
): Pick<Operation, 'parameters' | 'requestBody' | 'responses'> {
  const overrides = new Set(overrideReferences.map((reference) => reference.$ref));
  const byKey = new Map<string, { parameter: Parameter; methods: string[] }>();
  for (const [method, operation] of parts) {
    for (const parameter of operation.parameters ?? []) {
      if (parameter.$ref && overrides.has(parameter.$ref)) continue;
      const key = parameter.$ref ?? `${parameter.in} ${parameter.name}`;
      const entry = byKey.get(key) ?? { parameter, methods: [] };
      entry.methods.push(method.toUpperCase());
      byKey.set(key, entry);
    }
  }
  const parameters = [...byKey.values()].map(({ parameter, methods }) =>
    methods.length === parts.length || parameter.$ref
      ? parameter
      : {
          ...parameter,
          required: false,
          description: `${parameter.description ?? ''} Applies to ${listed(methods, 'and')} only.`.trim(),
        },
  );
  const inPath = parameters.filter((parameter) => parameter.in === 'path');
  const bodies = parts.filter(([, operation]) => operation.requestBody);
  return {
    parameters: [...inPath, ...headers, ...parameters.filter((parameter) => parameter.in !== 'path')],
    ...(bodies.length > 0 && {
      requestBody: {
        required: bodies.length === parts.length && bodies.every(([, operation]) => operation.requestBody?.required),
        ...(bodies.length < parts.length && { description: `Only with ${listed(methodsOf(bodies), 'and')}.` }),
        content: mergedContent(bodies.map(([, operation]) => operation.requestBody?.content ?? {})),
      },
    }),
    responses: mergedResponses(parts),
  };
}

/** Each status any of `parts` answers, once: its problems named once each, its bodies as a union. */
function mergedResponses(parts: readonly Carried[]): Record<string, Response> {
  const statuses = [...new Set(parts.flatMap(([, operation]) => Object.keys(operation.responses)))];
  const responses: Record<string, Response> = {};
  for (const status of statuses.sort((a, b) => Number(a) - Number(b))) {
    const answering = parts.flatMap(([method, operation]): [Method, Response][] =>
      operation.responses[status] ? [[method, operation.responses[status]]] : [],
    );
    // A problem response names each kind it stands for: each once, whichever operations share it.
    const kinds = [...new Set(answering.flatMap(([, response]) => problemKindsIn(response.description)))];
    const headers: Record<string, unknown> = {};
    for (const [, response] of answering) {
      for (const [name, header] of Object.entries(response.headers ?? {})) headers[name] ??= header;
    }
    const contents = answering.flatMap(([, response]) => (response.content ? [response.content] : []));
    responses[status] = {
      description: Number(status) >= 400 && kinds.length > 0 ? problemDescription(kinds) : mergedDescription(answering),
      ...(Object.keys(headers).length > 0 && { headers }),
      ...(contents.length > 0 && { content: mergedContent(contents) }),
    };
  }
  return responses;
}

/** One description per distinct text, each after the methods it belongs to when they differ. */
function mergedDescription(answering: readonly [Method, Response][]): string {
  const byText = new Map<string, string[]>();
  for (const [method, { description }] of answering) {
    byText.set(description, [...(byText.get(description) ?? []), method.toUpperCase()]);
  }
  if (byText.size === 1) return answering[0]?.[1].description ?? '';
  return [...byText].map(([text, methods]) => `${methods.join(', ')}: ${text}`).join(' ');
}

/** Each media type once, its schema the one every operation has, or the union of theirs. */
function mergedContent(contents: readonly Content[]): Content {
  const content: Content = {};
  for (const mediaType of new Set(contents.flatMap((one) => Object.keys(one)))) {
    const schemas = new Map<string, unknown>();
    for (const one of contents) {
      const schema = one[mediaType]?.schema;
      if (schema !== undefined) schemas.set(JSON.stringify(schema), schema);
    }
    const distinct = [...schemas.values()];
    content[mediaType] = distinct.length === 1 ? { schema: distinct[0] } : { schema: { anyOf: distinct } };
  }
  return content;
}

const methodsOf = (parts: readonly Carried[]) => parts.map(([method]) => method.toUpperCase());

/** `A, B or C`. */
function listed(items: readonly string[], last: 'and' | 'or'): string {
  return items.length < 2 ? (items[0] ?? '') : `${items.slice(0, -1).join(', ')} ${last} ${items.at(-1)}`;
}
