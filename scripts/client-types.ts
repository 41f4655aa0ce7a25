/**
 * `npm run client:types -- [FOLDER] [--out FILE]`: in a clone, `restock types` for a schema
 * folder given by name (default: the example store, schemas/shop) rather than by `SCHEMAS`.
 * The installed package has the command itself (src/commands/types.ts).
 */
import { writeFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { recordTypes } from '../src/commands/types.js';

const { values, positionals } = parseArgs({ options: { out: { type: 'string' } }, allowPositionals: true });
const types = await recordTypes(positionals[0] ?? 'schemas/shop');
if (values.out) writeFileSync(values.out, types);
else process.stdout.write(types);
