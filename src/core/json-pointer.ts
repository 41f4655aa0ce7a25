/** RFC 6901 escaping of one reference token. */
export function escapePointer(token: string): string {
  return token.replaceAll('~', '~0').replaceAll('/', '~1');
}
