import { Type } from 'typebox';

/** The name the problem schema is documented under, in `#/components/schemas`. */
export const PROBLEM_COMPONENT_ID = 'Problem';

/** RFC 9457 problem details, as every error response carries them. */
export const ProblemComponent = Type.Object(
  {
    type: Type.String({ description: 'A URI reference naming the kind of problem; GET it for a description.' }),
    title: Type.String(),
    status: Type.Integer(),
    detail: Type.String(),
    instance: Type.String({ description: 'The request path.' }),
    errors: Type.Optional(
      Type.Array(Type.Object({ pointer: Type.String(), message: Type.String() }), {
        description: 'Each failed check, as a JSON Pointer into the body or the query.',
      }),
    ),
  },
  { description: 'An RFC 9457 problem document (application/problem+json).' },
);
