/**
 * HTTP/1.1 written byte for byte on a socket, for requests no HTTP client would send
 * (bytes that are not UTF-8, broken framing, headers sent one byte at a time).
 */
import { connect } from 'node:net';

export interface RawResponse {
  status: number;
  headers: Record<string, string>;
  body: Buffer;
}

/**
 * Sends `request` on a new connection and reads until the server closes it (send
 * `Connection: close`). Resolves with the response, or undefined when the connection closed
 * without one. The client does not half-close: Node's HTTP server takes a client's FIN as
 * the end of the exchange and drops a response still being prepared.
 */
export function rawExchange(port: number, request: Buffer, timeoutMs = 15_000): Promise<RawResponse | undefined> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    const socket = connect(port, '127.0.0.1', () => socket.write(request));
    const timer = setTimeout(() => {
      socket.destroy();
      reject(
        new Error(`no answer within ${timeoutMs} ms to ${JSON.stringify(request.subarray(0, 200).toString('latin1'))}`),
      );
    }, timeoutMs);
    socket.on('data', (chunk: Buffer) => chunks.push(chunk));
    // A reset after the response was written is normal when the server refuses unread input.
    socket.on('error', () => {});
    socket.on('close', () => {
      clearTimeout(timer);
      resolve(parseResponse(Buffer.concat(chunks)));
    });
  });
}

/** Parses the first response in `bytes` (undefined if there is none). */
export function parseResponse(bytes: Buffer): RawResponse | undefined {
  const end = bytes.indexOf('\r\n\r\n');
  if (end < 0) return undefined;
  const [statusLine = '', ...lines] = bytes.subarray(0, end).toString('latin1').split('\r\n');
  const status = /^HTTP\/1\.1 (\d{3}) /.exec(statusLine)?.[1];
  if (!status) return undefined;
  const headers: Record<string, string> = {};
  for (const line of lines) {
    const colon = line.indexOf(':');
    headers[line.slice(0, colon).toLowerCase()] = line.slice(colon + 1).trim();
  }
  return { status: Number(status), headers, body: bytes.subarray(end + 4) };
}
