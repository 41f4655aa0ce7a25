/**
 * Where bytes stop being UTF-8. Decoding replaces each bad sequence with U+FFFD silently, so
 * a body or an import holding one would be stored changed; restock refuses it instead,
 * naming the first bad byte, as PostgreSQL's COPY does.
 */
import { isUtf8 } from 'node:buffer';

/** The offset of the first byte that is not part of valid UTF-8, or undefined when all are. */
export function invalidUtf8Offset(bytes: Uint8Array): number | undefined {
  if (isUtf8(bytes)) return undefined;
  // Everything before the first replacement the decoder made came through unchanged, so
  // that replacement's offset is the length of the text before it, encoded again. A U+FFFD
  // the bytes really hold (EF BF BD) is passed over.
  const text = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('utf8');
  let offset = 0;
  let from = 0;
  for (let at = text.indexOf('\uFFFD'); at !== -1; at = text.indexOf('\uFFFD', at + 1)) {
    offset += Buffer.byteLength(text.slice(from, at));
    from = at;
    if (!(bytes[offset] === 0xef && bytes[offset + 1] === 0xbf && bytes[offset + 2] === 0xbd)) return offset;
  }
  return bytes.byteLength;
}
