/**
 * `restock check`: which stored records break their collection's schema, and which values
 * of a unique field several records share. Turning a schema on never changes stored
 * records; this is how an operator finds the ones to fix.
 */
import type { CollectionSchema } from '../schemas/collection-schema.js';
import { idList } from '../store/sql/unique-sql.js';
import type { Position, Store } from '../store/store.js';

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
