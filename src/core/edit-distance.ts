/**
 * How far one name is from another, for "did you mean …?" in the settings (src/config/)
 * and in schema folders. Hand-written: a dozen lines, not worth a dependency.
 */

/**
 * How many single-character insertions, deletions, substitutions and swaps of two
 * neighbours turn `a` into `b` (the optimal string alignment distance). A swap counts as
 * one edit, not two, because it is the commonest slip of a typing hand (`PROT` for `PORT`).
 */
export function editDistance(a: string, b: string): number {
  let beforePrevious: number[] = [];
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    for (let j = 1; j <= b.length; j++) {
      const substitution = (previous[j - 1] ?? 0) + (a[i - 1] === b[j - 1] ? 0 : 1);
      let distance = Math.min((previous[j] ?? 0) + 1, (current[j - 1] ?? 0) + 1, substitution);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) {
        distance = Math.min(distance, (beforePrevious[j - 2] ?? 0) + 1);
      }
      current[j] = distance;
    }
    [beforePrevious, previous] = [previous, current];
  }
  return previous[b.length] ?? 0;
}
