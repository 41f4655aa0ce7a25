/** The known name nearest to a mistyped one, for "did you mean …?". */
import { editDistance } from '../core/edit-distance.js';

export { editDistance };

/**
 * The candidate closest to `name`, if it is close enough to be what was meant: at most a
 * third of its letters wrong (and at least two allowed), ties going to the first.
 */
export function nearest(name: string, candidates: Iterable<string>): string | undefined {
  let best: string | undefined;
  let bestDistance = Math.max(2, Math.floor(name.length / 3)) + 1;
  for (const candidate of candidates) {
    const distance = editDistance(name, candidate);
    if (distance < bestDistance) [best, bestDistance] = [candidate, distance];
  }
  return best;
}
