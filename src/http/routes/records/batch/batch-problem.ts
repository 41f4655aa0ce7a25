/**
 * A batch's failure as one problem document: the failing operation's own problem (its
 * status, type and detail), with the operation named in the detail and every pointer
 * moved under its index, `/2/body/price` for the body's `/price`.
 */

import type { BatchStepError } from '../../../../store/store.js';
import { HttpProblem, toProblem } from '../../../problem.js';

/** Where a problem of each kind points when it names no field: the part of the operation it is about. */
const POINTED_AT: Partial<Record<HttpProblem['kind'], string>> = {
  'not-found': 'path',
  'precondition-failed': 'ifMatch',
  'record-too-large': 'body',
  'schema-violation': 'body',
};

/** The problem of a batch that stopped at `failure.index`, whose body was `sent`. */
export function batchProblem(sent: unknown, failure: BatchStepError, requestId: string): HttpProblem {
  const index = failure.index;
  const problem = toProblem(
    failure.cause instanceof Error ? failure.cause : new Error(String(failure.cause)),
    requestId,
  );
  const operation = Array.isArray(sent) ? (sent[index] as { method?: unknown; path?: unknown } | undefined) : undefined;
  const named = `Operation ${index} (${String(operation?.method ?? '').toUpperCase()} ${String(operation?.path ?? '')})`;
  // Pointers a batch's own check wrote name the batch already; an operation's own name its body.
  const absolute = problem.kind === 'invalid-batch';
  const errors = problem.extras.errors?.map((error) => ({
    ...error,
    pointer: absolute ? error.pointer : `/${index}/body${error.pointer}`,
  })) ?? [
    { pointer: `/${index}${POINTED_AT[problem.kind] ? `/${POINTED_AT[problem.kind]}` : ''}`, message: problem.detail },
  ];
  return new HttpProblem(problem.kind, `${named} failed, so the batch did not run: ${problem.detail}`, {
    ...problem.extras,
    errors,
    cause: failure.cause,
  });
}
