/**
 * Reads records for `restock import` from a JSON array or NDJSON, one at a time, each with
 * the line it starts on, without holding the whole input in memory.
 *
 * The JSON array splitter is written by hand: streaming JSON parsers on npm yield values
 * or tokens, but none says on which line a top-level element starts, and a bad record must
 * be reported by its line.
 */
import type { Readable } from 'node:stream';

/** One record's JSON text and the line (from 1) it starts on. */
export interface RecordText {
  line: number;
  text: string;
}

/** The input is not a JSON array or NDJSON; says on which line it goes wrong. */
export class InputError extends Error {
  constructor(
    readonly line: number,
    message: string,
  ) {
    super(message);
  }
}

/**
 * Yields each record of `input`: the elements of a JSON array when the first character that
 * is not blank is `[`, else each non-blank line (NDJSON). Values are not parsed here.
 */
export async function* readRecords(input: Readable): AsyncGenerator<RecordText> {
  input.setEncoding('utf8');
  const chunks = input[Symbol.asyncIterator]() as AsyncIterator<string>;
  let first = '';
  while (first.trim() === '') {
    const next = await chunks.next();
    if (next.done) return;
    first += next.value;
  }
  const rest = (async function* () {
    yield first;
    for (let next = await chunks.next(); !next.done; next = await chunks.next()) yield next.value;
  })();
  yield* first.trimStart().startsWith('[') ? splitJsonArray(rest) : splitLines(rest);
}

async function* splitLines(chunks: AsyncIterable<string>): AsyncGenerator<RecordText> {
  let line = 0;
  let pending = '';
  for await (const chunk of chunks) {
    pending += chunk;
    let end = pending.indexOf('\n');
    while (end !== -1) {
      line++;
      const text = pending.slice(0, end).trim();
      if (text !== '') yield { line, text };
      pending = pending.slice(end + 1);
      end = pending.indexOf('\n');
    }
  }
  line++;
  if (pending.trim() !== '') yield { line, text: pending.trim() };
}

const BLANK = new Set([' ', '\t', '\r', '\n', '\uFEFF']);

/**
 * Splits a JSON array into the texts of its elements by tracking strings and nesting; each
 * element's own syntax is left to JSON.parse. Errors in the array's frame (a missing comma
 * or bracket, text after the end) are reported with their line.
 */
async function* splitJsonArray(chunks: AsyncIterable<string>): AsyncGenerator<RecordText> {
  let line = 1;
  /** Before `[`, between elements, inside one, or after `]`. */
  let where = 'start' as 'start' | 'between' | 'element' | 'end';
  let expectValue = true;
  let depth = 0;
  let inString = false;
  let escaped = false;
  let element = '';
  let elementLine = 0;

  for await (const chunk of chunks) {
    let from = 0;
    for (let i = 0; i < chunk.length; i++) {
      const c = chunk[i] as string;
      if (where === 'element') {
        if (inString) {
          if (escaped) escaped = false;
          else if (c === '\\') escaped = true;
          else if (c === '"') inString = false;
          else if (c === '\n') line++;
          continue;
        }
        if (c === '"') inString = true;
        else if (c === '{' || c === '[') depth++;
        else if (c === '}' || c === ']') {
          if (depth > 0) depth--;
          else {
            // The array's own closing bracket ends the last element.
            element += chunk.slice(from, i);
            yield { line: elementLine, text: element.trim() };
            element = '';
            where = 'end';
            continue;
          }
        } else if (c === ',' && depth === 0) {
          element += chunk.slice(from, i);
          yield { line: elementLine, text: element.trim() };
          element = '';
          where = 'between';
          expectValue = true;
          continue;
        } else if (c === '\n') line++;
        continue;
      }
      if (c === '\n') {
        line++;
        continue;
      }
      if (BLANK.has(c)) continue;
      if (where === 'start') {
        if (c !== '[') throw new InputError(line, `expected "[" to open the array, found "${c}"`);
        where = 'between';
      } else if (where === 'end') {
        throw new InputError(line, `unexpected "${c}" after the end of the array`);
      } else if (c === ']') {
        if (expectValue && elementLine > 0) throw new InputError(line, 'expected a record after ","');
        where = 'end';
      } else if (c === ',') {
        throw new InputError(line, 'expected a record, found ","');
      } else {
        where = 'element';
        elementLine = line;
        expectValue = false;
        depth = c === '{' || c === '[' ? 1 : 0;
        inString = c === '"';
        from = i;
      }
    }
    if (where === 'element') element += chunk.slice(from);
  }
  if (where !== 'end') throw new InputError(line, 'the array is not closed with "]"');
}
