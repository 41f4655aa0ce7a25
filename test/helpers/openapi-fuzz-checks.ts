/**
 * The checks a fuzzer's `--checks all` makes of each answer, beyond those the contract
 * checker (./openapi-validator.ts) makes of every exchange (a documented status, content
 * type, headers and body; no request the document refuses accepted):
 *
 * - no server error (5xx);
 * - a request the document admits is not refused for a reason it does not state: an
 *   override header it lists, a content type it lists, a query value its schema pins down
 *   (a number, an enum) refused although valid, or a body valid by its schema answered 422
 *   as breaking the schema;
 * - an operation whose `security` lists no empty requirement answers no anonymous caller.
 */
import type { InjectOptions, LightMyRequestResponse } from 'fastify';
import type { Operation } from './openapi-fuzz.js';

export type Sender = 'admin' | 'shopper' | 'anonymous';

/** What the checks read of the document beside the operation: its own security, the owner fields of its schemas. */
export interface DocumentFacts {
  security?: readonly Record<string, string[]>[];
  owners: ReadonlySet<string>;
}

/** The document's facts the checks read, from its components. */
export function factsOf(document: {
  security?: Record<string, string[]>[];
  components: { schemas?: Record<string, Record<string, unknown>> };
}): DocumentFacts {
  const owners = Object.values(document.components.schemas ?? {}).flatMap((schema) =>
    typeof schema['x-owner'] === 'string' ? [schema['x-owner']] : [],
  );
  return { security: document.security, owners: new Set(owners) };
}

/** A mismatch, as `kind: operation: detail`; one kind per reason, so that runs can be counted by kind. */
export function mismatchesOf(
  operation: Operation,
  sender: Sender,
  request: InjectOptions,
  response: LightMyRequestResponse,
  refused: readonly string[] | undefined,
  document: DocumentFacts,
): string[] {
  const found: string[] = [];
  const { statusCode: status } = response;
  const what = `${operation.method} ${operation.path} (${operation.operationId}) as ${sender} → ${status}`;
  if (status >= 500) found.push(`server error: ${what}: ${response.body.slice(0, 200)}`);
  const security = operation.security ?? document.security ?? [];
  const anonymousAllowed = security.length === 0 || security.some((item) => Object.keys(item).length === 0);
  if (sender === 'anonymous' && status < 400 && !anonymousAllowed) {
    found.push(`security: ${what}: answered a caller without credentials, but its security requires one`);
  }
  if (refused === undefined || refused.length > 0 || status < 400 || status >= 500) return found;
  const problem = problemOf(response);
  const type = problem?.type?.split('/').pop();
  if (type === 'invalid-method-override') found.push(`override header refused: ${what}: ${problem?.detail}`);
  if (type === 'unsupported-media-type') {
    found.push(`content type refused: ${what}: ${(request.headers as Record<string, string>)['content-type']}`);
  }
  // An owner field (`x-owner`) is filled from the caller's account; the document says a key must send it.
  const unstated = problem?.errors?.filter(
    (error) => !(error.message === 'is required' && document.owners.has(error.pointer.slice(1))),
  );
  if (type === 'schema-violation' && unstated?.length !== 0) {
    found.push(`valid body refused: ${what}: ${problem?.detail} ${JSON.stringify(problem?.errors)} ${request.payload}`);
  }
  if (type === 'invalid-query') {
    const named = operation.parameters.find(
      (parameter) =>
        parameter.in === 'query' && problem?.errors?.some((error) => error.pointer === `/${parameter.name}`),
    );
    const pinned =
      named?.schema && (named.schema.enum !== undefined || /integer|number/.test(String(named.schema.type)));
    if (pinned && !statedConflict(named, request)) {
      found.push(`valid query refused: ${what}: ${problem?.detail}`);
    }
  }
  return found;
}

interface Problem {
  type?: string;
  detail?: string;
  errors?: { pointer: string; message?: string }[];
}

function problemOf(response: LightMyRequestResponse): Problem | undefined {
  try {
    return JSON.parse(response.body) as Problem;
  } catch {
    return undefined;
  }
}

/** Whether the parameter states (`x-refused-with`) that it is refused beside another the request sent. */
function statedConflict(parameter: Operation['parameters'][number] | undefined, request: InjectOptions) {
  const others = (parameter as { 'x-refused-with'?: string[] } | undefined)?.['x-refused-with'] ?? [];
  const url = String(request.url ?? '');
  const query = new URLSearchParams(url.includes('?') ? url.slice(url.indexOf('?') + 1) : '');
  return others.some((name) => query.has(name));
}
