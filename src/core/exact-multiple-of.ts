/**
 * `multipleOf` in exact decimal arithmetic. Ajv's own divides doubles, so
 * `{"multipleOf": 0.01}` refuses 0.07 (0.07 / 0.01 is 7.000000000000001 in binary), and its
 * `multipleOfPrecision` option accepts 19.999999999 as a multiple of 0.01. Here both
 * numbers are read as the decimals JSON wrote them (JavaScript's shortest round-trip form)
 * and divided as integers, so "two decimals at most" means exactly that.
 *
 * Written by hand: Ajv has no exact mode, and a decimal library would be a dependency for
 * one division.
 */
import type { Ajv, ErrorObject } from 'ajv';

/** A finite number as an integer and a power of ten: 19.99 is 1999 × 10^-2. */
function decimal(value: number): { digits: bigint; scale: number } {
  const [mantissa = '0', exponent = '0'] = Math.abs(value).toString().split('e');
  const [whole = '0', fraction = ''] = mantissa.split('.');
  const scale = fraction.length - Number(exponent);
  const digits = BigInt(whole + fraction);
  return scale >= 0 ? { digits, scale } : { digits: digits * 10n ** BigInt(-scale), scale: 0 };
}

/** Whether `value` is an integer multiple of `divisor`, in exact decimal arithmetic. */
export function isExactMultiple(value: number, divisor: number): boolean {
  const v = decimal(value);
  const d = decimal(divisor);
  const scale = Math.max(v.scale, d.scale);
  const a = v.digits * 10n ** BigInt(scale - v.scale);
  const b = d.digits * 10n ** BigInt(scale - d.scale);
  return b !== 0n && a % b === 0n;
}

/** Replaces Ajv's `multipleOf` with the exact one. */
export function useExactMultipleOf(ajv: Ajv): void {
  const exactMultipleOf = Object.assign(
    (divisor: number, value: number): boolean => {
      if (isExactMultiple(value, divisor)) return true;
      exactMultipleOf.errors = [
        { keyword: 'multipleOf', message: `must be a multiple of ${divisor}`, params: { multipleOf: divisor } },
      ];
      return false;
    },
    { errors: [] as Partial<ErrorObject>[] },
  );
  ajv.removeKeyword('multipleOf');
  ajv.addKeyword({
    keyword: 'multipleOf',
    type: 'number',
    schemaType: 'number',
    metaSchema: { type: 'number', exclusiveMinimum: 0 },
    errors: true,
    validate: exactMultipleOf,
  });
}
