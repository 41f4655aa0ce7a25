/**
 * Statements and programs: how the SQL core speaks to a driver.
 *
 * A unit of work that needs more than one statement (read a row, merge it in the
 * application, write it back) is a generator that yields each statement and gets its result
 * back. The core writes it once; each driver steps through it its own way: SQLite
 * synchronously, inside group commit's transaction, PostgreSQL asynchronously, on one
 * pooled connection inside BEGIN and COMMIT. A statement that fails is thrown back into the
 * generator at its `yield`, so a program can catch it (a savepoint rolled back to).
 */

/** One statement and its parameters, in the order of its placeholders. */
export interface Sql {
  readonly text: string;
  readonly values: readonly unknown[];
  /** A name for a statement run often (PostgreSQL keeps it prepared on each connection). */
  readonly name?: string;
}

export type Row = Record<string, unknown>;

/** What a statement gave: its rows (RETURNING included), and how many rows it changed. */
export interface Result {
  readonly rows: Row[];
  readonly changes: number;
}

/** A unit of work: yields statements, gets their results, returns its outcome. */
export type Program<T> = Generator<Sql, T, Result>;

/** A statement without parameters. */
export function sql(text: string): Sql {
  return { text, values: [] };
}

/** Runs one statement inside a program. */
export function* execute(statement: Sql): Program<Result> {
  return yield statement;
}

/** Runs one statement inside a program; resolves with its first row. */
export function* first<R>(statement: Sql): Program<R | undefined> {
  return (yield statement).rows[0] as R | undefined;
}

/** A statement's outcome: its result, or what it threw. */
type Outcome = { result: Result } | { error: unknown };

/** Hands a statement's outcome back to the program, at its `yield`. */
function resume<T>(program: Program<T>, outcome: Outcome): IteratorResult<Sql, T> {
  return 'error' in outcome ? program.throw(outcome.error) : program.next(outcome.result);
}

/** Steps through `program`, running each statement with `run`, synchronously. */
export function runProgram<T>(program: Program<T>, run: (statement: Sql) => Result): T {
  let step = program.next();
  while (!step.done) {
    let outcome: Outcome;
    try {
      outcome = { result: run(step.value) };
    } catch (error) {
      outcome = { error };
    }
    step = resume(program, outcome);
  }
  return step.value;
}

/** Steps through `program`, running each statement with `run`, one after the other. */
export async function runProgramAsync<T>(program: Program<T>, run: (statement: Sql) => Promise<Result>): Promise<T> {
  let step = program.next();
  while (!step.done) {
    const outcome = await run(step.value).then(
      (result): Outcome => ({ result }),
      (error: unknown): Outcome => ({ error }),
    );
    step = resume(program, outcome);
  }
  return step.value;
}

/**
 * A statement whose parameters are named: `build` writes the SQL, calling `param(name)` for
 * each placeholder (a name used twice binds one value), and the result binds values by
 * name. A dialect may leave a name out (PostgreSQL takes the time from the database, not a
 * `now` parameter), and then its value is not sent.
 */
export function statement<K extends string>(
  placeholder: (n: number) => string,
  build: (param: (name: K) => string) => string,
  name?: string,
): (values: Readonly<Record<K, unknown>>) => Sql {
  const names: K[] = [];
  const text = build((key) => {
    let at = names.indexOf(key);
    if (at < 0) at = names.push(key) - 1;
    return placeholder(at + 1);
  });
  return (values) => ({ text, values: names.map((key) => values[key]), ...(name ? { name } : {}) });
}
