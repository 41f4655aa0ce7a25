/**
 * `restock check`: which stored records break their collection's schema, and which values
 * of a unique field several records share. Turning a schema on never changes stored
 * records; this is how an operator finds the ones to fix.
 */
import { ConfigError } from '../config.js';
import { RESOURCES } from '../resources.js';
import { type CollectionSchema, collectionSchemasOf } from '../schemas/collection-schema.js';
import { openStore, storeOptionsOf } from '../store/open-store.js';
import { idList } from '../store/sql/unique-sql.js';
import type { Position, Store } from '../store/store.js';
import type { CommandContext } from './command.js';

export interface CheckSummary {
  /** Records read. */
  checked: number;
  /** Records that break their schema. */
  invalid: number;
  /** Values of unique fields held by more than one record. */
  duplicated: number;
}

/** Reads every record of every collection that has a schema, page by page; reports each problem as a line. */
export async function checkRecords(
  store: Store,
  schemas: ReadonlyMap<string, CollectionSchema>,
  report: (line: string) => void,
): Promise<CheckSummary> {
  const summary: CheckSummary = { checked: 0, invalid: 0, duplicated: 0 };
  for (const [collection, schema] of schemas) {
    const records = store.collection(collection);
    let after: Position | undefined;
    for (;;) {
      const page = await records.list({ where: [], sort: [], limit: 1000, after });
      for (const record of page) {
        summary.checked++;
        const violations = schema.check(JSON.parse(record.data));
        if (violations.length === 0) continue;
        summary.invalid++;
        for (const v of violations) report(`${collection}/${record.id} ${v.pointer || '/'}: ${v.message}`);
      }
      const last = page[page.length - 1];
      if (!last || page.length < 1000) break;
      after = last.position;
    }
    for (const field of schema.unique) {
      for (const duplicate of await records.duplicates(field, 100)) {
        summary.duplicated++;
        report(
          `${collection}.${field.path.join('.')}: ${duplicate.count} records share ${JSON.stringify(duplicate.value)} ` +
            `(ids ${idList(duplicate.ids)})`,
        );
      }
    }
  }
  return summary;
}

/**
 * `restock check`: prints each problem on a line of its own and a summary; exits 1 when
 * there is any. Opens the store without enforcing the unique fields, which would refuse a
 * database whose records share a value, the very thing this lists.
 */
export async function runCheck({ config, io }: CommandContext): Promise<number> {
  const collections = RESOURCES.map((r) => r.plural);
  const schemas = collectionSchemasOf(config, collections);
  if (schemas.size === 0) throw new ConfigError('check compares records with their schemas: set SCHEMAS to a folder');
  const store = await openStore(config.databaseUrl, collections, storeOptionsOf(config, new Map()));
  try {
    const summary = await checkRecords(store, schemas, (line) => io.stdout.write(`${line}\n`));
    io.stderr.write(
      `checked ${summary.checked} records: ${summary.invalid} break their schema, ` +
        `${summary.duplicated} values of unique fields are shared\n`,
    );
    return summary.invalid + summary.duplicated > 0 ? 1 : 0;
  } finally {
    await store.close();
  }
}
