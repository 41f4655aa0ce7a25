/**
 * Values from a JSON Schema of the OpenAPI document, as a property-based fuzzer draws them:
 * ones the schema admits (often, not always: a `pattern` or `format` it cannot aim at is
 * drawn as plain text, and the contract checker decides), and ones that break it. Whether a
 * drawn request is valid is never assumed here; the checker judges each against the document.
 */
import fc from 'fast-check';

type Schema = Record<string, unknown>;
export type Resolve = (ref: string) => Schema;

const MAX_DEPTH = 4;

/** Values shaped by `schema`, mostly valid by it. */
export function drawnValue(schema: Schema | undefined, resolve: Resolve, depth = 0): fc.Arbitrary<unknown> {
  if (!schema || depth > MAX_DEPTH) return fc.constant({});
  if (typeof schema.$ref === 'string') return drawnValue(resolve(schema.$ref), resolve, depth + 1);
  if ('const' in schema) return fc.constant(schema.const);
  if (Array.isArray(schema.enum)) return fc.constantFrom(...(schema.enum as unknown[]));
  const choices = (schema.anyOf ?? schema.oneOf) as Schema[] | undefined;
  if (choices) return fc.oneof(...choices.map((choice) => drawnValue(choice, resolve, depth + 1)));
  if (Array.isArray(schema.examples) && schema.examples.length > 0 && schema.type === 'object') {
    return fc.oneof(fc.constantFrom(...(schema.examples as unknown[])), shaped(schema, resolve, depth));
  }
  return shaped(schema, resolve, depth);
}

function shaped(schema: Schema, resolve: Resolve, depth: number): fc.Arbitrary<unknown> {
  const type = Array.isArray(schema.type) ? (schema.type[0] as string) : (schema.type as string | undefined);
  switch (type) {
    case 'integer':
      return fc.integer({ min: bound(schema.minimum, -1000), max: bound(schema.maximum, 1000) });
    case 'number': {
      const cents = fc.integer({ min: bound(schema.minimum, -1000) * 100, max: bound(schema.maximum, 1000) * 100 });
      return cents.map((n) => n / 100);
    }
    case 'boolean':
      return fc.boolean();
    case 'null':
      return fc.constant(null);
    case 'string':
      return textOf(schema);
    case 'array': {
      const minLength = (schema.minItems as number | undefined) ?? 0;
      const maxLength = Math.min((schema.maxItems as number | undefined) ?? 3, minLength + 2);
      return fc.array(drawnValue(schema.items as Schema, resolve, depth + 1), { minLength, maxLength });
    }
    case 'object':
      return objectOf(schema, resolve, depth);
    default:
      return fc.oneof(fc.string({ maxLength: 8 }), fc.integer(), fc.constant(null));
  }
}

/** Bounds kept small, so that a drawn number stays near the edges a server checks. */
const bound = (value: unknown, fallback: number) =>
  typeof value === 'number' ? Math.max(-1e6, Math.min(1e6, value)) : fallback;

function textOf(schema: Schema): fc.Arbitrary<string> {
  const minLength = (schema.minLength as number | undefined) ?? 0;
  const maxLength = Math.max(minLength, Math.min((schema.maxLength as number | undefined) ?? 12, 24));
  switch (schema.format) {
    case 'email':
      return fc.emailAddress();
    case 'date-time':
      return fc
        .date({ min: new Date('2000-01-01'), max: new Date('2100-01-01'), noInvalidDate: true })
        .map((date) => date.toISOString());
    case 'uri':
      return fc.webUrl();
  }
  if (Array.isArray(schema.examples) && schema.examples.length > 0) {
    return fc.oneof(fc.constantFrom(...(schema.examples as string[])), fc.string({ minLength, maxLength }));
  }
  return fc.string({ minLength, maxLength, unit: 'grapheme-ascii' });
}

function objectOf(schema: Schema, resolve: Resolve, depth: number): fc.Arbitrary<unknown> {
  const properties = (schema.properties ?? {}) as Record<string, Schema>;
  const required = new Set((schema.required ?? []) as string[]);
  const known = Object.entries(properties).filter(([name]) => required.has(name) || depth < 2);
  const fields = Object.fromEntries(known.map(([name, field]) => [name, drawnValue(field, resolve, depth + 1)]));
  return fc.record(fields, { requiredKeys: [...required].filter((name) => name in fields) });
}

/** Values that break `schema` as its keywords say (a wrong type, out of range, a missing field…). */
export function brokenOf(schema: Schema | undefined, resolve: Resolve): fc.Arbitrary<unknown> {
  const target = schema && typeof schema.$ref === 'string' ? resolve(schema.$ref) : (schema ?? {});
  const breakers: fc.Arbitrary<unknown>[] = [fc.constantFrom('not-json-typed', -1, 1.5, true, null, [], {})];
  if (typeof target.minimum === 'number') breakers.push(fc.constant(target.minimum - 1));
  if (typeof target.maximum === 'number') breakers.push(fc.constant(target.maximum + 1));
  if (Array.isArray(target.enum)) breakers.push(fc.constant('NOT-IN-ENUM'));
  if (target.type === 'object' && Array.isArray(target.required) && target.required.length > 0) {
    breakers.push(
      drawnValue(target, resolve).map((value) => {
        const copy = { ...(value as Record<string, unknown>) };
        delete copy[(target.required as string[])[0] as string];
        return copy;
      }),
    );
  }
  if (target.type === 'object' && target.additionalProperties === false) {
    breakers.push(drawnValue(target, resolve).map((value) => ({ ...(value as object), unknownField: 1 })));
  }
  return fc.oneof(...breakers);
}
