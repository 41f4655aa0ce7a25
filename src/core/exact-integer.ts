/**
 * Whether an integer literal of a JSON text survives JSON.parse, which keeps every number
 * as a double.
 */

/** An integer literal: a JSON number token without fraction or exponent. */
export const INTEGER_LITERAL = /^-?\d+$/;

/**
 * Whether the integer literal `token` survives being kept as a double: the double, written
 * back as restock writes it, denotes the same integer. 2^64 does not (it comes back as
 * 18446744073709552000, another integer to a client that reads integers exactly, as
 * Python or Go's json.Number do); `100000000000000000000` does, and so does 10^300 written
 * out in full (it comes back as `1e+300`), as PostgreSQL writes back a stored `1e300`.
 * (Every literal of at most 15 characters survives; the scanner does not ask about those.)
 */
export function isExactInteger(token: string): boolean {
  const double = Number(token);
  return Number.isFinite(double) && integerOf(String(double)) === BigInt(token);
}

/**
 * The integer that JavaScript's text of a double beyond 2^53 denotes: digits, or from 1e21
 * on a mantissa and an exponent (`1.5e+25`), never a fraction left over.
 */
function integerOf(text: string): bigint {
  const [mantissa = '', exponent = '0'] = text.split('e');
  const [whole = '', fraction = ''] = mantissa.split('.');
  return BigInt(whole + fraction) * 10n ** BigInt(Number(exponent) - fraction.length);
}
