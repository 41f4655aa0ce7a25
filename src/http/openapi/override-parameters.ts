/**
 * The method override headers as reusable parameters: the route schemas name them on
 * every collection operation (so that Fastify accepts them), and the document keeps one
 * definition of each in components, which the operations reference, rather than the same
 * three headers written out on every operation. The tunnelled operations (./tunnelled.ts)
 * reference a required form of the first header, one component per set of methods.
 */
import { OVERRIDE_HEADER_NAMES } from '../plugins/method-override/index.js';

const OVERRIDE_METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'];

/** The component name of an override header: HTTP-X-HTTP-METHOD is HttpXHttpMethod. */
const componentName = (header: string) =>
  header
    .toLowerCase()
    .split('-')
    .map((part) => part.charAt(0).toUpperCase() + part.slice(1))
    .join('');

export const overrideParameters = Object.fromEntries(
  OVERRIDE_HEADER_NAMES.map((name, i) => [
    componentName(name),
    {
      name,
      in: 'header' as const,
      required: false,
      description:
        'Method override: a client that can only send GET or POST sends this operation as POST (or GET, ' +
        `when the server allows it) with this header set to its method.${i === 0 ? '' : ` An alias of ${OVERRIDE_HEADER_NAMES[0]}.`}`,
      schema: { type: 'string' as const, enum: OVERRIDE_METHODS },
    },
  ]),
);

/** References to the three optional override headers, as an operation lists them. */
export const overrideReferences = OVERRIDE_HEADER_NAMES.map((name) => ({
  $ref: `#/components/parameters/${componentName(name)}`,
}));

/** The component of the required override header naming one of `methods`: HttpXHttpMethodForGetPutPatchDelete. */
export function tunnelParameterName(methods: readonly string[]): string {
  return `${componentName(OVERRIDE_HEADER_NAMES[0])}For${methods.map((m) => componentName(m)).join('')}`;
}

/**
 * The override header as a tunnelled operation takes it: required, since without it the
 * request is not that operation at all, and naming only the methods its path takes.
 * OpenAPI cannot require one header out of three, so the first name is the required one;
 * the aliases, which the server reads alike, stay optional beside it (and must agree).
 */
export function tunnelParameter(methods: readonly string[]) {
  return {
    name: OVERRIDE_HEADER_NAMES[0],
    in: 'header' as const,
    required: true,
    description:
      'The method this request stands for; the request is then handled and answered exactly as that method ' +
      `would be. The server also reads ${OVERRIDE_HEADER_NAMES.slice(1).join(' and ')}, and takes any case.`,
    schema: { type: 'string' as const, enum: [...methods] },
  };
}

interface Parameter {
  in?: string;
  name?: string;
  $ref?: string;
}

const OVERRIDE_NAMES = new Set(OVERRIDE_HEADER_NAMES.map((name) => name.toLowerCase()));

/** Replaces each inline override header of every operation with a reference to its component. */
export function referenceOverrideHeaders<T extends { paths?: object }>(document: T): T {
  for (const item of Object.values(document.paths ?? {})) {
    for (const operation of Object.values((item ?? {}) as object)) {
      const op = operation as { parameters?: Parameter[] };
      if (!Array.isArray(op?.parameters)) continue;
      op.parameters = op.parameters.map((parameter) =>
        parameter.in === 'header' && parameter.name && OVERRIDE_NAMES.has(parameter.name.toLowerCase())
          ? { $ref: `#/components/parameters/${componentName(parameter.name)}` }
          : parameter,
      );
    }
  }
  return document;
}
