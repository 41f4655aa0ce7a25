/**
 * Problem responses written once: every operation lists the problems it can end in, and
 * most of those lists are alike (every operation's 500, every guarded one's 401), so written
 * out on each operation they were more than half of the document, which the reference page
 * downloads, parses and holds in full. Each distinct problem response is kept once under
 * `components/responses`, named after the problem kinds it stands for, and the operations
 * name it by `$ref`. Resolving every such `$ref` gives back the document as generated.
 *
 * The last step of the document's generation: the steps before read the problem kinds back
 * from the descriptions of an operation's own responses (./guards.ts, ./merged-operations.ts).
 */
import type { ProblemKind } from '../problem-types.js';
import { problemDescription, problemKindsIn } from './responses.js';

/** Where a shared response is, as a `$ref` names it. */
export const SHARED_RESPONSES = '#/components/responses/';

const PROBLEM_MEDIA_TYPE = 'application/problem+json';
const METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'] as const;

interface Response {
  $ref?: string;
  description?: string;
  headers?: Record<string, unknown>;
  content?: Record<string, unknown>;
}
type PathItem = Partial<Record<(typeof METHODS)[number], { responses?: Record<string, Response> }>>;
interface Document {
  paths?: Record<string, PathItem>;
  components?: { responses?: Record<string, Response> };
}

/**
 * The name a problem response is shared under: its kinds in the order it names them
 * (`NotFound`, `PayloadTooLargeOrRecordTooLarge`); HEAD's, which carry no body, end in
 * `WithoutBody`. Derived from the response alone, so a name stays with its meaning whatever
 * else the document holds.
 */
export function sharedResponseName(kinds: readonly ProblemKind[], withBody: boolean): string {
  const pascal = (kind: ProblemKind) =>
    kind.replace(/(?:^|-)([a-z0-9])/g, (_match, letter: string) => letter.toUpperCase());
  return `${kinds.map(pascal).join('Or')}${withBody ? '' : 'WithoutBody'}`;
}

/**
 * The kinds `response` stands for when it is a problem response as ./responses.ts builds
 * them: an error status, a description that names its kinds and nothing else, and a
 * problem body or (HEAD) none. Anything else is left where it is.
 */
function problemKindsOf(status: string, response: Response): ProblemKind[] | undefined {
  if (Number(status) < 400 || response.$ref !== undefined || response.description === undefined) return undefined;
  const kinds = problemKindsIn(response.description);
  if (kinds.length === 0 || problemDescription(kinds) !== response.description) return undefined;
  const media = Object.keys(response.content ?? {});
  if (response.content && (media.length !== 1 || media[0] !== PROBLEM_MEDIA_TYPE)) return undefined;
  return kinds;
}

/** Moves each problem response of `openapi`'s operations to `components/responses`, once per distinct one. */
export function shareProblemResponses(openapi: object): void {
  const document = openapi as Document;
  const shared = new Map<string, { response: Response; text: string }>();
  for (const item of Object.values(document.paths ?? {})) {
    for (const method of METHODS) {
      const responses = item[method]?.responses ?? {};
      for (const [status, response] of Object.entries(responses)) {
        const kinds = problemKindsOf(status, response);
        if (!kinds) continue;
        const name = sharedResponseName(kinds, response.content !== undefined);
        const text = JSON.stringify(response);
        const known = shared.get(name) ?? { response, text };
        // Responses of one status and kinds are built alike; one that is not keeps its own words.
        if (known.text !== text) continue;
        shared.set(name, known);
        responses[status] = { $ref: `${SHARED_RESPONSES}${name}` };
      }
    }
  }
  if (shared.size === 0) return;
  const sorted = [...shared].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  document.components = {
    ...document.components,
    responses: {
      ...document.components?.responses,
      ...Object.fromEntries(sorted.map(([name, { response }]) => [name, response])),
    },
  };
}
