/**
 * The options of the commands that take their own, apart from the commands: the table of
 * commands (./commands.ts) needs them for parsing and --help, and every start reads that table,
 * so a command's code (json-schema-to-typescript for `types`, cli-progress for `import` and
 * `export`) and the store it opens are imported only when the command runs.
 */
import type { OptionSpec } from './command.js';

export const collectionOption = {
  collection: {
    type: 'string',
    short: 'c',
    help: 'the collection, by its plural: users, products, or one SCHEMAS declares',
    placeholder: 'NAME',
  },
} as const satisfies Record<string, OptionSpec>;

export const importOptions = {
  ...collectionOption,
  'batch-size': { type: 'string', help: 'records per transaction (default 1000)', placeholder: 'N' },
  'new-ids': { type: 'boolean', help: 'give every record a new id, ignoring the ids in the file' },
  'dry-run': { type: 'boolean', help: 'check every line, also against the database, and write nothing' },
  upsert: {
    type: 'string',
    help: 'replace the records that match one in the file on FIELD (id, or a unique field); create the others',
    placeholder: 'FIELD',
  },
} as const;

export const exportOptions = {
  ...collectionOption,
  format: { type: 'string', help: 'ndjson or json (default: json for an --output ending .json, else ndjson)' },
  output: { type: 'string', short: 'o', help: 'write to FILE instead of standard output', placeholder: 'FILE' },
  'password-hashes': {
    type: 'boolean',
    help: 'give each account its password hash, as "password" (a collection of accounts only; keep the file secret)',
  },
} as const;

export const typesOptions = {
  out: { type: 'string', short: 'o', help: 'write to FILE instead of standard output', placeholder: 'FILE' },
} as const;
