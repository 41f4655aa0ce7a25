/**
 * An input's text, chunk by chunk, refusing bytes that are not UTF-8 where decoding would
 * replace them with U+FFFD and import a changed record. The refusal names the line and the
 * byte offset in the whole input, as PostgreSQL's COPY does.
 */
import type { Readable } from 'node:stream';
import { invalidUtf8Offset } from '../core/invalid-utf8.js';
import { InputError } from './input-error.js';

const notUtf8 = (line: number, offset: number) =>
  new InputError(line, `the input is not UTF-8 text: it goes wrong at byte ${offset}`);

/** Yields `input`'s text; a character split between chunks is held until it is whole. */
export async function* utf8Text(input: Readable): AsyncGenerator<string> {
  let carried: Buffer = Buffer.alloc(0);
  let offset = 0;
  let line = 1;
  for await (const chunk of input as AsyncIterable<Buffer | string>) {
    const bytes = carried.length === 0 ? toBuffer(chunk) : Buffer.concat([carried, toBuffer(chunk)]);
    const whole = bytes.length - partialTail(bytes);
    const text = decode(bytes.subarray(0, whole), offset, line);
    carried = bytes.subarray(whole);
    offset += whole;
    for (let at = text.indexOf('\n'); at !== -1; at = text.indexOf('\n', at + 1)) line++;
    if (text !== '') yield text;
  }
  if (carried.length > 0) throw notUtf8(line, offset);
}

function decode(bytes: Buffer, offset: number, line: number): string {
  const bad = invalidUtf8Offset(bytes);
  if (bad === undefined) return bytes.toString('utf8');
  const before = bytes.subarray(0, bad).toString('utf8');
  let lines = 0;
  for (let at = before.indexOf('\n'); at !== -1; at = before.indexOf('\n', at + 1)) lines++;
  throw notUtf8(line + lines, offset + bad);
}

/**
 * How many bytes at the end begin a character the chunk does not finish: a lead byte
 * (11xxxxxx) within the last three, followed by fewer continuation bytes than it announces.
 */
function partialTail(bytes: Buffer): number {
  for (let back = 1; back <= Math.min(3, bytes.length); back++) {
    const byte = bytes[bytes.length - back] as number;
    if ((byte & 0xc0) === 0x80) continue;
    const needs = byte >= 0xf0 ? 4 : byte >= 0xe0 ? 3 : byte >= 0xc0 ? 2 : 1;
    return needs > back ? back : 0;
  }
  return 0;
}

function toBuffer(chunk: Buffer | string): Buffer {
  return typeof chunk === 'string' ? Buffer.from(chunk) : chunk;
}
