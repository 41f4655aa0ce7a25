/**
 * Requests drawn from the served OpenAPI document, as a property-based fuzzer (schemathesis)
 * draws them: for an operation, its path parameters, some of its query parameters and
 * headers (the override headers and their aliases among them), a body of one of its
 * content types (a range such as `application/*+json` sent as written, or as one type it
 * covers), each part valid by its schema or broken. ./openapi-fuzz-checks.ts judges the answers.
 */
import fc from 'fast-check';
import type { InjectOptions } from 'fastify';
import { brokenOf, drawnValue, type Resolve } from './schema-arbitrary.js';

type Schema = Record<string, unknown>;
export interface Parameter {
  name: string;
  in: 'path' | 'query' | 'header' | 'cookie';
  required?: boolean;
  style?: string;
  schema?: Schema;
  $ref?: string;
}
export interface Operation {
  operationId: string;
  method: string;
  path: string;
  parameters: Parameter[];
  requestBody?: { required?: boolean; content: Record<string, { schema?: Schema }> };
  responses: Record<string, unknown>;
  security?: Record<string, string[]>[];
}
export interface OpenApiDocument {
  paths: Record<string, Record<string, Omit<Operation, 'method' | 'path'>>>;
  components: { parameters?: Record<string, Parameter>; schemas?: Record<string, Schema> };
  security?: Record<string, string[]>[];
}

const METHODS = ['get', 'put', 'post', 'delete', 'patch', 'head'];
/** Credentials are the sender's; the fuzzer does not draw them. */
const CREDENTIAL_PARAMETERS = new Set(['access_token', 'authorization']);

/** Every operation of the document, its parameters resolved; change feeds' streams left out (below). */
export function operationsOf(document: OpenApiDocument): Operation[] {
  const resolveParameter = (parameter: Parameter) =>
    parameter.$ref ? (document.components.parameters?.[parameter.$ref.split('/').pop() ?? ''] as Parameter) : parameter;
  const operations: Operation[] = [];
  for (const [path, item] of Object.entries(document.paths)) {
    for (const method of METHODS) {
      const operation = item[method];
      if (!operation) continue;
      // A change feed's answer is an endless stream that inject() would wait on for ever;
      // its HEAD is checked here, its stream in test/change-feed.test.ts.
      if (method !== 'head' && JSON.stringify(operation.responses).includes('text/event-stream')) continue;
      operations.push({
        ...operation,
        method: method.toUpperCase(),
        path,
        parameters: (operation.parameters ?? []).map(resolveParameter),
      });
    }
  }
  return operations;
}

export const resolverOf =
  (document: OpenApiDocument): Resolve =>
  (ref) =>
    document.components.schemas?.[ref.split('/').pop() ?? ''] ?? {};

/** A part valid by its schema most of the time, and broken the rest. */
const partOf = (schema: Schema | undefined, resolve: Resolve) =>
  fc.oneof({ weight: 6, arbitrary: drawnValue(schema, resolve) }, { weight: 1, arbitrary: brokenOf(schema, resolve) });

/** The text of a drawn value as a query or header carries it. */
const asText = (value: unknown) => (typeof value === 'string' ? value : JSON.stringify(value));

/** A drawn request for `operation`: `ids` are records that exist, so that some paths name one. */
export function requestOf(operation: Operation, resolve: Resolve, ids: readonly number[]): fc.Arbitrary<InjectOptions> {
  const pathParts = operation.parameters
    .filter((parameter) => parameter.in === 'path')
    .map((parameter) =>
      fc
        .oneof(
          {
            weight: 4,
            arbitrary: parameter.name === 'id' ? fc.constantFrom(...ids) : drawnValue(parameter.schema, resolve),
          },
          { weight: 1, arbitrary: partOf(parameter.schema, resolve) },
        )
        .map((value) => [parameter.name, asText(value)] as const),
    );
  const optional = operation.parameters.filter(
    (parameter) =>
      (parameter.in === 'query' || parameter.in === 'header') &&
      !CREDENTIAL_PARAMETERS.has(parameter.name.toLowerCase()),
  );
  const optionalParts = optional.map((parameter) =>
    fc.option(partOf(parameter.schema, resolve), { freq: parameter.required ? 8 : 2 }).map((value) => ({
      parameter,
      value,
    })),
  );
  const media = Object.entries(operation.requestBody?.content ?? {});
  const body =
    media.length === 0
      ? fc.constant(undefined)
      : fc.option(
          fc.record({
            type: fc.constantFrom(...media.flatMap(([type]) => concreteTypes(type))),
            value: fc.nat(media.length - 1).chain((i) => partOf(media[i]?.[1].schema, resolve)),
          }),
          { freq: operation.requestBody?.required ? 10 : 2 },
        );
  return fc.tuple(fc.tuple(...pathParts), fc.tuple(...optionalParts), body).map(([path, parts, sent]) => {
    const url = operation.path.replace(/\{(\w+)\}/g, (_, name: string) =>
      encodeURIComponent(path.find(([key]) => key === name)?.[1] ?? ''),
    );
    const query = new URLSearchParams();
    const headers: Record<string, string> = {};
    for (const { parameter, value } of parts) {
      if (value === null) continue;
      if (parameter.in === 'header') headers[parameter.name] = asText(value);
      else if (parameter.style === 'deepObject' && value && typeof value === 'object' && !Array.isArray(value)) {
        for (const [key, item] of Object.entries(value)) query.append(`${parameter.name}[${key}]`, asText(item));
      } else query.append(parameter.name, asText(value));
    }
    const search = query.toString();
    const options: InjectOptions = {
      method: operation.method as InjectOptions['method'],
      url: search ? `${url}?${search}` : url,
      headers,
    };
    if (sent) {
      headers['content-type'] = sent.type;
      options.payload = JSON.stringify(sent.value);
    }
    return options;
  });
}

/** A documented media type as sent: itself (a range too, as a fuzzer takes it literally), or a type a range covers. */
function concreteTypes(type: string): string[] {
  return type.includes('*') ? [type, type.replace('*', 'vnd.restock-fuzz')] : [type];
}
