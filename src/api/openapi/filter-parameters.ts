/**
 * A collection's filters as query parameters: `price=19.5`, or `price[gte]=10` as OpenAPI's
 * deepObject style writes `{ price: { gte: 10 } }`. Fastify's schema cannot say which
 * fields exist (src/records/query-fields.ts decides), so the document lists those it knows
 * a collection has: the system fields, the fields its schema declares (but an account's
 * password, which is never stored), and its indexed fields, the ones worth filtering on.
 * Generated clients then type and serialize `price[gte]` themselves; on an open schema,
 * other fields still filter, undocumented.
 */
import { type Collection, SYSTEM_FIELDS } from '../../core/collection.js';
import { RESERVED } from '../../records/list-query.js';
import { queryFieldsOf } from '../../records/query-fields.js';
import { FILTER_OPERATORS, OPERATORS } from '../../store/filter-operators.js';

/** Query names the change feed reads itself (src/http/routes/records/change-feed.ts), never filters. */
const FEED_NAMES = ['since', 'access_token'];

/** A filter's value: text on the wire, read as JSON when it is a number, true, false, null or quoted. */
const VALUE = { type: ['string', 'number', 'boolean'] };

/** The component every filter parameter's schema references. */
const FILTER_SCHEMA = 'FieldFilter';

interface Document {
  paths?: Record<string, { get?: { parameters?: { name?: string; in?: string }[] } }>;
  components?: { schemas?: Record<string, unknown> };
}

/** Adds each collection's filters to its list and its change feed in `document`. */
export function documentFilters(document: object, collections: readonly Collection[]): void {
  const { paths, components } = document as Document;
  if (components?.schemas) components.schemas[FILTER_SCHEMA] = FilterSchema;
  for (const collection of collections) {
    const parameters = filterFields(collection).map(filterParameter);
    for (const path of [`/${collection.plural}/`, `/${collection.plural}/events/`]) {
      const operation = paths?.[path]?.get;
      if (operation) operation.parameters = [...(operation.parameters ?? []), ...parameters];
    }
    // `offset` and `cursor` are each valid alone and refused together (400), which a schema
    // per parameter cannot say: the description says it to people, this to tools that read the document.
    const offset = paths?.[`/${collection.plural}/`]?.get?.parameters?.find(
      (p) => p.in === 'query' && p.name === 'offset',
    );
    if (offset) Object.assign(offset, { 'x-refused-with': ['cursor'] });
  }
}

/** The fields of `collection` documented as filters, each once, none a name the query reserves. */
function filterFields(collection: Collection): string[] {
  const { schema, indexes } = collection;
  const declared = Object.keys((schema?.document.properties as object | undefined) ?? {});
  const indexed = indexes.map((index) => index.path.join('.'));
  const taken = new Set<string>([...RESERVED, ...FEED_NAMES, ...queryFieldsOf(collection).withheld]);
  return [...new Set([...SYSTEM_FIELDS, ...declared, ...indexed])].filter(
    (name) => !taken.has(name) && /^[^[\]]+$/.test(name),
  );
}

/** A filter's forms: a value (equal), or operators with theirs, as deepObject style writes `price[gte]=10`. */
const FilterSchema = {
  description:
    `A value the field equals, or conditions by operator (${OPERATORS.join(', ')}). A value reads as JSON when ` +
    'it is a number, true, false, null or a "quoted" string, else as text; in takes values separated by commas.',
  anyOf: [
    VALUE,
    {
      type: 'object',
      properties: Object.fromEntries(
        OPERATORS.map((op) => [op, FILTER_OPERATORS[op].reads === 'scalar' ? VALUE : { type: 'string' }]),
      ),
      additionalProperties: false,
    },
  ],
};

function filterParameter(field: string) {
  return {
    name: field,
    in: 'query',
    style: 'deepObject',
    explode: true,
    required: false,
    description: `Only records whose ${field} matches: ${field}=value, or ${field}[op]=value.`,
    schema: { $ref: `#/components/schemas/${FILTER_SCHEMA}` },
  };
}
