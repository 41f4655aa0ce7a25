/**
 * Reads records for `restock import` from a JSON array or NDJSON, one at a time, each with
 * the line it starts on, without holding the whole input in memory.
 *
 * The JSON array splitter is written by hand: streaming JSON parsers on npm yield values
 * or tokens, but none says on which line a top-level element starts, and a bad record must
 * be reported by its line.
 */
import type { Readable } from 'node:stream';
import { InputError } from './input-error.js';
import { utf8Text } from './utf8-text.js';

export { InputError } from './input-error.js';

/** One record's JSON text and the line (from 1) it starts on. */
export interface RecordText {
  line: number;
  text: string;
}

/**
 * Yields each record of `input`: the elements of a JSON array when the first character that
 * is not blank is `[`, else each non-blank line (NDJSON). Values are not parsed here. A
 * record's text longer than `maxBytes` (UTF-8) is refused as soon as the part read passes
 * it, so memory stays within `maxBytes` and a chunk whatever the input holds.
 */
export async function* readRecords(input: Readable, maxBytes = Number.POSITIVE_INFINITY): AsyncGenerator<RecordText> {
  const chunks = utf8Text(input);
  try {
    // Blank chunks before the first record are dropped as they come (only their line
    // breaks are counted), so that no amount of blank input is held in memory.
    let first = '';
    let blankLines = 0;
    while (first.trim() === '') {
      blankLines += first.split('\n').length - 1;
      const next = await chunks.next();
      if (next.done) return;
      first = next.value;
    }
    const rest = (async function* () {
      yield first;
      for (let next = await chunks.next(); !next.done; next = await chunks.next()) yield next.value;
    })();
    yield* first.trimStart().startsWith('[')
      ? splitJsonArray(rest, maxBytes, blankLines)
      : splitLines(rest, maxBytes, blankLines);
  } finally {
    // Stops reading (and closes a file) when the caller gives up early or a record is refused.
    await chunks.return(undefined);
  }
}

/** The error for a record's text that passed `maxBytes`, at the line it starts on. */
const tooLong = (line: number, maxBytes: number) =>
  new InputError(line, `the record is longer than ${maxBytes} bytes (twice MAX_RECORD_BYTES and 4 KiB)`);

/**
 * Each non-blank line. A line's pieces are kept apart until its end is found, and only the
 * new chunk is searched for it: the work is linear in the input, however long a line.
 */
async function* splitLines(chunks: AsyncIterable<string>, maxBytes: number, skipped = 0): AsyncGenerator<RecordText> {
  let line = skipped;
  let pieces: string[] = [];
  let bytes = 0;
  const add = (piece: string) => {
    bytes += Buffer.byteLength(piece);
    if (bytes > maxBytes) throw tooLong(line + 1, maxBytes);
    pieces.push(piece);
  };
  for await (const chunk of chunks) {
    let from = 0;
    for (let end = chunk.indexOf('\n'); end !== -1; end = chunk.indexOf('\n', from)) {
      add(chunk.slice(from, end));
      line++;
      const text = pieces.join('').trim();
      pieces = [];
      bytes = 0;
      if (text !== '') yield { line, text };
      from = end + 1;
    }
    if (from < chunk.length) add(chunk.slice(from));
  }
  line++;
  const text = pieces.join('').trim();
  if (text !== '') yield { line, text };
}

const BLANK = new Set([' ', '\t', '\r', '\n', '\uFEFF']);

/**
 * Splits a JSON array into the texts of its elements by tracking strings and nesting; each
 * element's own syntax is left to JSON.parse. Errors in the array's frame (a missing comma
 * or bracket, text after the end) are reported with their line.
 */
async function* splitJsonArray(
  chunks: AsyncIterable<string>,
  maxBytes: number,
  skipped = 0,
): AsyncGenerator<RecordText> {
  let line = 1 + skipped;
  /** Before `[`, between elements, inside one, or after `]`. */
  let where = 'start' as 'start' | 'between' | 'element' | 'end';
  let expectValue = true;
  let depth = 0;
  let inString = false;
  let escaped = false;
  let element = '';
  let elementLine = 0;
  /** The bytes of `element`, kept as it grows rather than measured again. */
  let elementBytes = 0;
  /** The whole text of the element that ends with `last`; the next one starts empty. */
  const finish = (last: string) => {
    elementBytes += Buffer.byteLength(last);
    if (elementBytes > maxBytes) throw tooLong(elementLine, maxBytes);
    const text = (element + last).trim();
    element = '';
    elementBytes = 0;
    return text;
  };

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
            yield { line: elementLine, text: finish(chunk.slice(from, i)) };
            where = 'end';
            continue;
          }
        } else if (c === ',' && depth === 0) {
          yield { line: elementLine, text: finish(chunk.slice(from, i)) };
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
    if (where === 'element') {
      const piece = chunk.slice(from);
      elementBytes += Buffer.byteLength(piece);
      if (elementBytes > maxBytes) throw tooLong(elementLine, maxBytes);
      element += piece;
    }
  }
  if (where !== 'end') throw new InputError(line, 'the array is not closed with "]"');
}
