/** What restock answers when a request fails: an RFC 9457 problem document. */
export interface Problem {
  type: string;
  title: string;
  status: number;
  detail?: string;
  instance?: string;
  /** For a record that breaks its schema: each failure, as a JSON Pointer into the body. */
  errors?: { pointer: string; message: string }[];
  [member: string]: unknown;
}

/** A request restock refused or could not serve, with the problem document it sent. */
export class ProblemError extends Error {
  readonly status: number;
  readonly problem: Problem;
  /** The problem's kind: the last segment of its `type` (`not-found`, `schema-violation`, …). */
  readonly kind: string;
  /** For a batch that failed: the index of the operation that failed, as the problem's pointers name it. */
  readonly operation: number | undefined;

  constructor(problem: Problem, options: { operation?: number | undefined } = {}) {
    super(problem.detail ? `${problem.title}: ${problem.detail}` : problem.title);
    this.name = 'ProblemError';
    this.status = problem.status;
    this.problem = problem;
    this.kind = problem.type.replace(/\/$/, '').split('/').pop() ?? problem.type;
    this.operation = options.operation;
  }
}

/** The problem a failed response carries, or one made from its status when it carries none. */
export async function problemOf(response: Response): Promise<Problem> {
  const text = await response.text();
  try {
    const parsed = JSON.parse(text) as Problem;
    if (parsed && typeof parsed.title === 'string' && typeof parsed.status === 'number') return parsed;
  } catch {
    // Not JSON: something in front of restock answered (a proxy's error page).
  }
  return { type: 'about:blank', title: response.statusText || `HTTP ${response.status}`, status: response.status };
}
