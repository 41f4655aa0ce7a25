/**
 * The text restock stores: strings and field names are refused when they hold U+0000
 * (PostgreSQL's jsonb cannot hold it) or a lone surrogate (not Unicode text: I-JSON,
 * RFC 7493, forbids it; PostgreSQL refuses it; SQLite would store it). Refusing both on every
 * store keeps the stores' data interchangeable: what one accepts, the other does.
 */

const NUL_MESSAGE = 'contains the character U+0000, which restock does not store';
const SURROGATE_MESSAGE = 'contains a lone surrogate (an unpaired \\uD800-\\uDFFF), which is not Unicode text';

/** A `\uD800`-`\uDFFF` escape in JSON text: the only way JSON can carry a surrogate. */
export const SURROGATE_ESCAPE = /\\u[dD][89a-fA-F]/;

/**
 * A surrogate that is not half of a pair: with the `u` flag a regex reads a well-formed pair
 * as one code point, so \p{Surrogate} matches only lone ones. (String.prototype.isWellFormed
 * would say the same, but Node 20 lacks it.)
 */
const LONE_SURROGATE = /\p{Surrogate}/u;

/** What is wrong with `text` as a stored string or field name, or undefined when nothing is. */
export function textFault(text: string, refuseNul = true, refuseLoneSurrogates = true): string | undefined {
  if (refuseNul && text.includes('\u0000')) return NUL_MESSAGE;
  if (refuseLoneSurrogates && LONE_SURROGATE.test(text)) return SURROGATE_MESSAGE;
  return undefined;
}
