/** The input is not UTF-8 text, a JSON array or NDJSON; says on which line it goes wrong. */
export class InputError extends Error {
  constructor(
    readonly line: number,
    message: string,
  ) {
    super(message);
  }
}
