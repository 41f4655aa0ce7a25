/** METHOD_OVERRIDE: which wire methods may carry an override header (src/http/plugins/method-override/). */

/** Wire methods allowed to carry an override header (empty: overriding is off). */
export type OverrideWireMethods = ReadonlySet<'GET' | 'POST'>;

/** Parses the METHOD_OVERRIDE setting: `get,post`, `post` or `off`. */
export function parseOverrideSetting(raw: string): OverrideWireMethods | undefined {
  const value = raw.trim().toLowerCase();
  if (value === 'off' || value === 'none') return new Set();
  const parts = value.split(',').map((part) => part.trim().toUpperCase());
  if (parts.length === 0 || parts.some((part) => part !== 'GET' && part !== 'POST')) return undefined;
  return new Set(parts as ('GET' | 'POST')[]);
}
