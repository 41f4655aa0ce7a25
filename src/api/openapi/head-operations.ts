/**
 * HEAD in the document: the server answers it wherever it answers GET (Fastify adds the
 * route), with GET's status and headers and no body. A validating proxy refuses what the
 * document does not list, so each GET gets its HEAD, added before the tunnelled forms widen
 * the GETs (./tunnelled.ts): HEAD carries no override header, which on any wire method but
 * those METHOD_OVERRIDE names is refused. They share a tag of their own, after the
 * collections': a reader meets each collection's operations once, and the HEAD forms
 * together, where the reference page folds them (src/http/routes/docs-page.ts).
 */
import type { Operation, Response } from './merged-operations.js';
import { overrideReferences } from './override-parameters.js';

interface Document {
  paths?: Record<string, { get?: Operation; head?: Operation }>;
}

const OVERRIDES = new Set(overrideReferences.map((reference) => reference.$ref));

/** The tag every HEAD operation has, and its entry in the document's `tags`. */
export const HEAD_TAG = {
  name: 'HEAD',
  description: 'Each GET above again as HEAD: the same status and headers, without the body.',
};

/** Adds a HEAD operation beside every GET of `openapi`. */
export function documentHeads(openapi: object): void {
  for (const item of Object.values((openapi as Document).paths ?? {})) {
    if (item.get) item.head = headOf(item.get);
  }
}

function headOf(get: Operation): Operation {
  const { requestBody: _body, ...rest } = get;
  return {
    ...rest,
    ...(get.operationId && { operationId: `${get.operationId}Head` }),
    tags: [HEAD_TAG.name],
    ...(get.summary && { summary: `${get.summary}: the headers alone (HEAD)` }),
    description: `${get.description ? `${get.description} ` : ''}HEAD answers as GET does, without a body.`,
    parameters: (get.parameters ?? []).filter((parameter) => !parameter.$ref || !OVERRIDES.has(parameter.$ref)),
    responses: Object.fromEntries(
      Object.entries(get.responses).map(([status, response]) => [status, bodiless(response)]),
    ),
  };
}

/** A response as HEAD gets it: its status, description and headers, no content. */
function bodiless({ content: _content, ...response }: Response): Response {
  return response;
}
