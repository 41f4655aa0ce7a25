/**
 * The method override header as a reusable parameter: the route schemas name the three
 * header names on every collection operation (so that Fastify accepts them), and the
 * document keeps one definition, which the operations that may carry it reference. Only the
 * first name is listed: the server reads the aliases alike, but sent together they must
 * agree, which OpenAPI cannot say of three independent optional headers (a fuzzer sending
 * each its own value would be told 400 for a request the document admits). The tunnelled
 * operations (./tunnelled.ts) reference a required form of it, one component per set of methods.
 */
import type { OverrideWireMethods } from '../../config/index.js';
import { OVERRIDE_HEADER_NAMES } from '../methods.js';

const OVERRIDE_METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'];

/** The component name of an override header: HTTP-X-HTTP-METHOD is HttpXHttpMethod. */
const componentName = (header: string) =>
  header
    .toLowerCase()
    .split('-')
    .map((part) => part.charAt(0).toUpperCase() + part.slice(1))
    .join('');

const [FIRST_NAME, ...ALIASES] = OVERRIDE_HEADER_NAMES;

export const overrideParameters = {
  [componentName(FIRST_NAME)]: {
    name: FIRST_NAME,
    in: 'header' as const,
    required: false,
    description:
      'Method override: a client that can only send GET or POST sends this operation as POST (or GET, ' +
      'when the server allows it) with this header set to its method. The server also reads ' +
      `${ALIASES.join(' and ')} alike; several of them sent together must name the same method (else 400).`,
    schema: { type: 'string' as const, enum: OVERRIDE_METHODS },
  },
};

/** The reference to the optional override header, as an operation lists it. */
export const overrideReferences = [{ $ref: `#/components/parameters/${componentName(FIRST_NAME)}` }];

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

const isOverride = (parameter: Parameter) =>
  parameter.in === 'header' && parameter.name !== undefined && OVERRIDE_NAMES.has(parameter.name.toLowerCase());

/**
 * Replaces the inline override headers of every operation with a reference to the first
 * name's component, on the wire methods `allowed` to carry one (METHOD_OVERRIDE), and drops
 * them elsewhere: on PUT, PATCH or DELETE the server refuses the header (400), so the
 * document must not offer it there.
 */
export function referenceOverrideHeaders<T extends { paths?: object }>(document: T, allowed: OverrideWireMethods): T {
  for (const item of Object.values(document.paths ?? {})) {
    for (const [method, operation] of Object.entries((item ?? {}) as object)) {
      const op = operation as { parameters?: Parameter[] };
      if (!Array.isArray(op?.parameters)) continue;
      const carries = allowed.has(method.toUpperCase() as 'GET' | 'POST');
      const first = op.parameters.findIndex(isOverride);
      op.parameters = op.parameters.flatMap((parameter, i): Parameter[] =>
        !isOverride(parameter) ? [parameter] : carries && i === first ? overrideReferences : [],
      );
    }
  }
  return document;
}
