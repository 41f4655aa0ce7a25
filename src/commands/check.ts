/**
 * `restock check`: which stored records break their collection's schema, which hold text
 * the API now refuses (a lone surrogate, which a SQLite database may hold from before), and
 * which values of a unique field several records share, and which name records (`x-ref`)
 * that do not exist (written before the reference was declared, or imported). Turning a schema on never changes
 * stored records; this is how an operator finds the ones to fix.
 */

import type { Catalog } from '../core/catalog.js';
import type { Reference } from '../core/collection.js';
import { loadCatalog } from '../core/load-catalog.js';
import { checkLimits } from '../core/record-limits.js';
import { heldIds } from '../core/references.js';
import { openStore, storeOptionsOf } from '../store/open-store.js';
import { idList } from '../store/sql/unique-sql.js';
import type { Position, Records, Store, StoredRecord } from '../store/store.js';
import type { CommandContext } from './command.js';

/** Records read at a time: at most 100 MiB of them with records of up to 1 MiB. */
const PAGE_SIZE = 100;

/** Limits that never break: only the checks of text remain. */
const NO_LIMITS = { maxDepth: Number.POSITIVE_INFINITY, maxFieldNameLength: Number.POSITIVE_INFINITY };

export interface CheckSummary {
  /** Records read. */
  checked: number;
  /** Records that break their schema. */
  invalid: number;
  /** Records holding a lone surrogate in a string or field name. */
  badText: number;
  /** Values of unique fields held by more than one record. */
  duplicated: number;
  /** References to records that do not exist. */
  dangling: number;
}

/** Reads every record of the catalog's collections, page by page; reports each problem as a line. */
export async function checkRecords(
  store: Store,
  catalog: Catalog,
  report: (line: string) => void,
): Promise<CheckSummary> {
  const summary: CheckSummary = { checked: 0, invalid: 0, badText: 0, duplicated: 0, dangling: 0 };
  for (const { plural: collection, schema, references, unique } of catalog.collections) {
    const records = store.collection(collection);
    let after: Position | undefined;
    for (;;) {
      const page = await records.list({ where: [], sort: [], limit: PAGE_SIZE, after });
      for (const record of page) {
        summary.checked++;
        const fields = JSON.parse(record.data) as unknown;
        // The body checks with every limit lifted: only the lone surrogate check is left.
        const bad = checkLimits(fields, NO_LIMITS, { refuseNul: false });
        if (bad) {
          summary.badText++;
          report(`${collection}/${record.id} ${bad.pointer || '/'}: ${bad.message}`);
        }
        const violations = schema?.check(fields) ?? [];
        if (violations.length === 0) continue;
        summary.invalid++;
        for (const v of violations) report(`${collection}/${record.id} ${v.pointer || '/'}: ${v.message}`);
      }
      for (const reference of references) {
        for (const line of await danglingIn(page, reference, store.collection(reference.target))) {
          summary.dangling++;
          report(`${collection}/${line}`);
        }
      }
      const last = page[page.length - 1];
      if (!last || page.length < PAGE_SIZE) break;
      after = last.position;
    }
    for (const field of unique) {
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

/** Where the records of a page name a record of `target` that does not exist: `<id> <pointer>: …` lines. */
async function danglingIn(page: readonly StoredRecord[], reference: Reference, target: Records) {
  const held = page.flatMap((record) =>
    heldIds(JSON.parse(record.data), reference).map((h) => ({ ...h, record: record.id })),
  );
  const ids = [...new Set(held.map((h) => h.id).filter((id) => id > 0))];
  const found = new Set((await target.getMany(ids)).map((record) => record.id));
  return held
    .filter((h) => !found.has(h.id))
    .map((h) => `${h.record} ${h.pointer}: names no record of ${reference.target.plural} (id ${h.id})`);
}

/**
 * `restock check`: prints each problem on a line of its own and a summary; exits 1 when
 * there is any. Every collection is read; SCHEMAS adds the schema checks. Opens the store
 * without enforcing the unique fields, which would refuse a database whose records share a
 * value, the very thing this lists.
 */
export async function runCheck({ config, io }: CommandContext): Promise<number> {
  const catalog = loadCatalog(config);
  const store = await openStore(config.databaseUrl, catalog, storeOptionsOf(config, { enforceUnique: false }));
  try {
    const summary = await checkRecords(store, catalog, (line) => io.stdout.write(`${line}\n`));
    io.stderr.write(
      `checked ${summary.checked} records: ${summary.invalid} break their schema, ${summary.badText} hold a ` +
        `lone surrogate, ${summary.duplicated} values of unique fields are shared, ${summary.dangling} ` +
        'references name no record\n',
    );
    return summary.invalid + summary.badText + summary.duplicated + summary.dangling > 0 ? 1 : 0;
  } finally {
    await store.close();
  }
}
