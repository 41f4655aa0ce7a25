/**
 * The responses of the document's operations as a reader follows them: the document keeps
 * each problem response once under `components/responses` and operations name it by `$ref`
 * (src/api/openapi/shared-responses.ts), so what an operation answers is what its refs name.
 */

const SHARED = '#/components/responses/';
const METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'];

interface Shared<R> {
  paths: Record<string, Record<string, { responses?: Record<string, R | { $ref: string }> }>>;
  components?: { responses?: Record<string, R> };
}

/** The response `response` stands for: itself, or the shared one its `$ref` names; throws where none is. */
export function followedResponse<R>(document: Pick<Shared<R>, 'components'>, response: R | { $ref: string }): R {
  const ref = (response as { $ref?: unknown }).$ref;
  if (typeof ref !== 'string') return response as R;
  const named = ref.startsWith(SHARED) ? document.components?.responses?.[ref.slice(SHARED.length)] : undefined;
  if (named === undefined) throw new Error(`${ref} names no response of the document`);
  return named;
}

/**
 * A copy of `document` with every operation's response written out where its `$ref` was,
 * and no `components/responses`: the document as it was generated, before sharing.
 */
export function withResponsesFollowed<D extends object>(document: D): D {
  const copy = structuredClone(document) as unknown as Shared<unknown>;
  for (const item of Object.values(copy.paths ?? {})) {
    for (const [method, operation] of Object.entries(item)) {
      if (!METHODS.includes(method) || !operation.responses) continue;
      for (const [status, response] of Object.entries(operation.responses)) {
        operation.responses[status] = structuredClone(followedResponse(copy, response));
      }
    }
  }
  if (copy.components) {
    const { responses: _shared, ...components } = copy.components;
    copy.components = components;
  }
  return copy as unknown as D;
}
