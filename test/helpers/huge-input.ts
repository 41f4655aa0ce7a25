/** Inputs larger than a test could hold: made as they are read. */

export const CHUNK = 64 * 1024;

/** `head`, then `total` bytes of "x" in chunks, counting in `pulled` what was taken. */
export function* hugeRecord(head: string, total: number, pulled: { bytes: number }) {
  yield Buffer.from(head);
  const chunk = Buffer.alloc(CHUNK, 'x');
  for (let sent = 0; sent < total; sent += CHUNK) {
    pulled.bytes += CHUNK;
    yield chunk;
  }
  yield Buffer.from('"}\n');
}
