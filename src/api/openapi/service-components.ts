/** Components of the service routes: the index, probes and problem type descriptions. */
import { Type } from 'typebox';

const Link = (description: string) => Type.String({ description });

export const IndexComponent = Type.Object(
  {
    name: Type.String(),
    collections: Type.Record(
      Type.String(),
      Type.Object({
        description: Type.String(),
        list: Link('GET: the collection, page by page.'),
        create: Link('POST: a new record.'),
        item: Link('GET, PUT, PATCH, DELETE: one record ({id} is its id).'),
        events: Link("GET: the collection's changes as server-sent events."),
        references: Type.Optional(
          Type.Array(
            Type.Object({
              name: Type.String({ description: 'The reference, as expand= names it.' }),
              collection: Type.String({ description: 'The collection whose records it names.' }),
              many: Type.Boolean({ description: 'Whether it holds an array of ids (it sits inside an array).' }),
            }),
            { description: 'The fields that hold ids of records of other collections (x-ref).' },
          ),
        ),
        auth: Type.Optional(
          Link(
            'For a collection of accounts (x-auth): POST signs in, DELETE signs out; its refresh/ renews the token.',
          ),
        ),
        signInWith: Type.Optional(
          Type.Array(Type.String(), {
            description: 'For a collection of accounts: the unique fields a sign-in may name beside the password.',
          }),
        ),
        verify: Type.Optional(
          Type.Literal('email', {
            description:
              'For a collection of accounts that proves their email (x-auth.verify): a sign-up is mailed a link.',
          }),
        ),
      }),
    ),
    health: Link('Liveness probe.'),
    ready: Link('Readiness probe.'),
    docs: Link('The API reference page.'),
    openapi: Link('This API as an OpenAPI 3.1 document.'),
    metrics: Link('Prometheus metrics.'),
  },
  { description: 'Links to everything the service offers.' },
);

export const HealthComponent = Type.Object({ status: Type.Literal('ok') });

export const ReadyComponent = Type.Object({
  status: Type.Literal('ready'),
  store: Type.String({ description: 'The kind of database: sqlite or postgres.' }),
});

export const ProblemTypeComponent = Type.Object({
  type: Type.String(),
  status: Type.Integer(),
  title: Type.String(),
  description: Type.String(),
});

export const ProblemKindParams = Type.Object({ kind: Type.String({ examples: ['not-found'] }) });
