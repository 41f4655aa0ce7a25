/** Whether a JSON value is an object: not null, not an array. Every floor asks this one function. */
export function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
