/**
 * Several operations as one: the parameters, body, answers and security of the operations a
 * tunnelled form carries (./tunnelled.ts), each named once, bodies and schemas as unions. A
 * parameter or body only some of them take says which, in words and as `x-applies-to` (the
 * methods): the server ignores it where the header names another, whatever it holds.
 */
import { overrideReferences } from './override-parameters.js';
import { problemDescription, problemKindsIn } from './responses.js';

export type Method = 'get' | 'put' | 'post' | 'patch' | 'delete';

export interface Parameter {
  $ref?: string;
  in?: string;
  name?: string;
  required?: boolean;
  description?: string;
}
export interface Content {
  [mediaType: string]: { schema?: unknown; encoding?: unknown };
}
export interface Response {
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
  requestBody?: { required?: boolean; description?: string; 'x-applies-to'?: string[]; content: Content };
  responses: Record<string, Response>;
  /** Ways to meet it, each naming the schemes it needs; `{}` names none (./security.ts). */
  security?: Record<string, string[]>[];
}
/** One operation a tunnelled form carries, with the method that names it. */
export type Carried = [Method, Operation];

/** The parameters, body, answers and security of several operations as one operation's. */
export function merged(
  parts: readonly Carried[],
  headers: readonly Parameter[],
): Pick<Operation, 'parameters' | 'requestBody' | 'responses' | 'security'> {
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
          // The same for tools: where the header names another method the server ignores it.
          'x-applies-to': methods,
        },
  );
  const inPath = parameters.filter((parameter) => parameter.in === 'path');
  const bodies = parts.filter(([, operation]) => operation.requestBody);
  return {
    parameters: [...inPath, ...headers, ...parameters.filter((parameter) => parameter.in !== 'path')],
    ...(bodies.length > 0 && {
      requestBody: {
        required: bodies.length === parts.length && bodies.every(([, operation]) => operation.requestBody?.required),
        ...(bodies.length < parts.length && {
          description: `Only with ${listed(methodsOf(bodies), 'and')}.`,
          'x-applies-to': methodsOf(bodies),
        }),
        content: mergedContent(bodies.map(([, operation]) => operation.requestBody?.content ?? {})),
      },
    }),
    responses: mergedResponses(parts),
    ...mergedSecurity(parts),
  };
}

/**
 * The security of several operations as one's: any way that meets one of them, `{}` (no
 * credential) last. None where one of them has none of its own: the document's then applies.
 */
function mergedSecurity(parts: readonly Carried[]): Pick<Operation, 'security'> {
  const all = parts.map(([, operation]) => operation.security);
  if (all.some((security) => security === undefined)) return {};
  if (all.every((security) => security?.length === 0)) return { security: [] };
  const ways = new Map<string, Record<string, string[]>>();
  for (const security of all) {
    for (const way of security?.length === 0 ? [{}] : (security ?? [])) ways.set(JSON.stringify(way), way);
  }
  const sorted = [...ways.values()].sort(
    (a, b) => Number(Object.keys(a).length === 0) - Number(Object.keys(b).length === 0),
  );
  return { security: sorted };
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
    // A multipart body's encoding says how its parts are read: the same for every operation that takes one.
    const encoding = contents.find((one) => one[mediaType]?.encoding)?.[mediaType]?.encoding;
    content[mediaType] = {
      schema: distinct.length === 1 ? distinct[0] : { anyOf: distinct },
      ...(encoding !== undefined && { encoding }),
    };
  }
  return content;
}

const methodsOf = (parts: readonly Carried[]) => parts.map(([method]) => method.toUpperCase());

/** `A, B or C`. */
export function listed(items: readonly string[], last: 'and' | 'or'): string {
  return items.length < 2 ? (items[0] ?? '') : `${items.slice(0, -1).join(', ')} ${last} ${items.at(-1)}`;
}
