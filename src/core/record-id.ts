/**
 * A record's id as a path names it: a positive integer of at most 16 digits, kept exactly by
 * a double. Anything else (`0`, `07`, `1e3`, a name) names no record; each route answers that
 * as a missing record.
 */
export function recordIdOf(text: string): number | undefined {
  if (!/^[1-9][0-9]{0,15}$/.test(text)) return undefined;
  const id = Number(text);
  return Number.isSafeInteger(id) ? id : undefined;
}
