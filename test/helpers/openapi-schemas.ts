/**
 * The OpenAPI document's schemas compiled for the contract checker (./openapi-validator.ts):
 * Ajv over the document's components, with formats and exact `multipleOf`.
 */
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { useExactMultipleOf } from '../../src/core/exact-multiple-of.js';

export type Schemas = ReturnType<typeof compilers>;

/** Validators of the document's schemas: `value` coerces text (parameters, headers), `body` does not. */
export function compilers(document: object) {
  // The schemas reference `#/components/…`: each is compiled beside the document's components.
  const root = JSON.parse(JSON.stringify(document).replaceAll('"$ref":"#/', '"$ref":"restock-openapi#/'));
  const make = (coerceTypes: boolean) => {
    const ajv = new Ajv2020({ strict: false, allErrors: true, coerceTypes, validateFormats: true });
    addFormats.default(ajv);
    // JSON Schema's multipleOf is exact, as the server applies it; Ajv's divides doubles and
    // would refuse 0.07 as a multiple of 0.01, a mismatch of the checker, not of the document.
    useExactMultipleOf(ajv);
    ajv.addSchema({ $id: 'restock-openapi', components: root.components });
    const cache = new Map<string, ValidateFunction>();
    return (schema: object | undefined): ValidateFunction => {
      const rewritten = JSON.parse(JSON.stringify(schema ?? {}).replaceAll('"$ref":"#/', '"$ref":"restock-openapi#/'));
      const wrapped = { type: 'object', properties: { value: rewritten } };
      const key = JSON.stringify(wrapped);
      const known = cache.get(key) ?? ajv.compile(wrapped);
      cache.set(key, known);
      return known;
    };
  };
  const value = make(true);
  const body = make(false);
  const errorsOf = (validate: ValidateFunction, data: unknown) =>
    validate({ value: data }) ? undefined : ajvErrors(validate);
  return {
    value: (schema: object | undefined, data: unknown) => errorsOf(value(schema), data),
    body: (schema: object | undefined, data: unknown) => errorsOf(body(schema), data),
  };
}

const ajvErrors = (validate: ValidateFunction) =>
  (validate.errors ?? [])
    .map((error) => `${error.instancePath.replace('/value', '') || '/'} ${error.message}`)
    .join(', ');
