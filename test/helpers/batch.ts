/**
 * Sending batches (`POST /batch/`) over real HTTP in a test, and reading what comes back:
 * each operation's result on success, the problem document on failure.
 */
import assert from 'node:assert/strict';

/** One operation as a client sends it; loose on purpose, so that malformed ones can be sent too. */
export interface Operation {
  method: string;
  path: string;
  body?: unknown;
  ifMatch?: string;
}

/** One operation's result in a batch's 200 answer. */
export interface OperationResult {
  status: number;
  headers: { etag: string; location?: string };
  body: Record<string, unknown> & { id: number; version?: number };
}

export interface Answer {
  status: number;
  headers: Headers;
  text: string;
}

export interface BatchProblem {
  type: string;
  title: string;
  status: number;
  detail: string;
  instance: string;
  errors?: { pointer: string; message: string }[];
}

/** Sends `method path` to `origin`, `body` as JSON when given, and reads the whole answer. */
export async function call(
  origin: string,
  method: string,
  path: string,
  { body, headers = {} }: { body?: unknown; headers?: Record<string, string> } = {},
): Promise<Answer> {
  const response = await fetch(`${origin}${path}`, {
    method,
    headers: { ...(body !== undefined && { 'content-type': 'application/json' }), ...headers },
    ...(body !== undefined && { body: typeof body === 'string' ? body : JSON.stringify(body) }),
  });
  return { status: response.status, headers: response.headers, text: await response.text() };
}

/** POSTs `operations` (any JSON, or text as it is) as a batch. */
export function postBatch(
  origin: string,
  operations: unknown,
  headers: Record<string, string> = {},
  path = '/batch/',
): Promise<Answer> {
  return call(origin, 'POST', path, { body: operations, headers });
}

/** The JSON body of an answer. */
export function json<T = Record<string, unknown>>(answer: Answer): T {
  return JSON.parse(answer.text) as T;
}

/** Asserts a batch ran (200, one result per operation) and returns its results. */
export function resultsOf(answer: Answer, count: number): OperationResult[] {
  assert.equal(answer.status, 200, answer.text);
  assert.match(String(answer.headers.get('content-type')), /^application\/json/);
  const results = json<OperationResult[]>(answer);
  assert.ok(Array.isArray(results), answer.text);
  assert.equal(results.length, count, answer.text);
  return results;
}

/** Asserts a problem document of `status` and `/problems/<type>` and returns it. */
export function problemOf(answer: Answer, status: number, type: string): BatchProblem {
  assert.equal(answer.status, status, answer.text);
  assert.match(String(answer.headers.get('content-type')), /^application\/problem\+json/, answer.text);
  const problem = json<BatchProblem>(answer);
  assert.equal(problem.status, status);
  assert.ok(problem.type.endsWith(`/problems/${type}`), `type ${problem.type}, not ${type}: ${answer.text}`);
  for (const member of ['title', 'detail', 'instance'] as const) assert.ok(problem[member], `no ${member}`);
  return problem;
}

/**
 * Asserts the problem of a batch stopped by operation `index`, `method path`: its detail
 * names the operation, and its first pointer is `pointer` (or starts with it, with `prefix`).
 */
export function failedAt(
  problem: BatchProblem,
  index: number,
  { method, path }: Pick<Operation, 'method' | 'path'>,
  pointer: string,
  { prefix = false }: { prefix?: boolean } = {},
): void {
  const named = `Operation ${index} (${method} ${path}) failed, so the batch did not run: `;
  assert.ok(problem.detail.startsWith(named), `detail "${problem.detail}" does not start "${named}"`);
  pointedAt(problem, pointer, { prefix });
}

/** Asserts the problem's first pointer is `pointer` (or starts with it, with `prefix`). */
export function pointedAt(problem: BatchProblem, pointer: string, { prefix = false } = {}): void {
  const first = problem.errors?.[0]?.pointer;
  assert.ok(first !== undefined, `no pointer in ${JSON.stringify(problem)}`);
  if (prefix) assert.ok(first.startsWith(pointer), `pointer ${first} does not start with ${pointer}`);
  else assert.equal(first, pointer, JSON.stringify(problem.errors));
}
