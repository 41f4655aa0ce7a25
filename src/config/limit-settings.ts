/**
 * The bounds on one request's work, declared in their place among ./settings.ts's: its
 * body, a record's depth, fields and bytes, an indexed value, a bulk create, a batch, a page.
 */
import { MAX_INDEXED_VALUE_BYTES } from '../core/indexed-values.js';
import { integer } from './parsers.js';
import type { Setting } from './setting.js';

export const LIMIT_SETTINGS = {
  bodyLimit: {
    default: '1048576',
    parse: integer(1, 2 ** 30),
    group: 'records',
    help: 'largest request body in bytes (`413` above)',
  },
  maxDepth: {
    default: '32',
    parse: integer(1, 1000),
    group: 'records',
    help: 'deepest nesting of a record (`400` above)',
  },
  maxRecordFields: {
    default: '10000',
    parse: integer(1, 1_000_000),
    group: 'records',
    help: 'most fields in a record, nested ones included (array items are not fields): `400` above',
  },
  maxFieldNameLength: {
    default: '200',
    parse: integer(1, 100_000),
    group: 'records',
    help: 'longest field name in a record (`400` above)',
  },
  maxRecordBytes: {
    // The default is BODY_LIMIT's value, known only once that is read (see load.ts).
    default: 'BODY_LIMIT',
    parse: (raw, name) => (raw === 'BODY_LIMIT' ? 0 : integer(1, 2 ** 30)(raw, name)),
    group: 'records',
    help: 'largest record, its fields as compact JSON in bytes, a create or change may leave (`413` above)',
  },
  maxIndexedValueBytes: {
    default: '2000',
    parse: integer(1, MAX_INDEXED_VALUE_BYTES),
    group: 'records',
    help: `largest value of an indexed or unique field in bytes, at most ${MAX_INDEXED_VALUE_BYTES} (PostgreSQL's index limit): \`413\` above, on both stores`,
  },
  maxBulkRecords: {
    default: '1000',
    parse: integer(1, 100_000),
    group: 'server',
    help: 'most records one create may send as a JSON array, all created or none (`413` above)',
  },
  maxBatchOperations: {
    default: '100',
    parse: integer(1, 10_000),
    group: 'server',
    help: 'most operations one batch (`POST /batch/`) may carry, all kept or none (`413` above)',
  },
  maxPageBytes: {
    default: '8388608',
    parse: integer(1, 2 ** 29),
    group: 'server',
    help: 'largest list page in bytes: it ends before the record that would pass it, never before its first; also the largest answer of a batch (`422` above)',
  },
} satisfies Record<string, Setting<unknown>>;
