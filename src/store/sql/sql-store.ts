/**
 * A {@link Store} over any {@link SqlDriver}: the tables synced on open, then collections
 * and Idempotency-Keys served by the core, every driver error turned into the store's.
 */
import type { Catalog } from '../../core/catalog.js';
import {
  collectionLookup,
  IdsExhaustedError,
  IndexedValueTooLargeError,
  StatementTimeoutError,
  type Store,
  type StoreOptions,
  StoreUnavailableError,
  type TableSync,
} from '../store.js';
import { sqlAccountTables } from './accounts/index.js';
import { sqlChangeLog } from './change-log-sql.js';
import type { Guard, SqlDriver } from './driver.js';
import type { SqlEngine } from './engine.js';
import { sqlFileUpkeep } from './file-upkeep-sql.js';
import { sqlMailOutbox } from './mail-outbox-sql.js';
import { recordPrograms } from './record-programs.js';
import { sqlBatch } from './sql-batch.js';
import { sqlCollection } from './sql-collection.js';
import { sqlIdempotencyKeys } from './sql-idempotency.js';
import { syncTables, type TableTarget } from './table-sync.js';
import { uniqueIndexName, uniqueViolation } from './unique-sql.js';
import { sqlWebhooks } from './webhooks-sql.js';

/** Syncs the tables through the engine (closing it if that fails) and serves the collections. */
export async function openSqlStore(
  engine: SqlEngine,
  catalog: Catalog,
  options: Pick<StoreOptions, 'statementTimeoutMs' | 'searchIndex' | 'maxIndexedValueBytes' | 'enforceUnique'>,
): Promise<Store> {
  const { driver, dialect, tables } = engine;
  const target = tableTarget(catalog, options);
  const guard = storeErrors(engine, target, options);
  let synced: TableSync;
  try {
    synced = await guard(driver.locked(() => syncTables(dialect, tables, target, isUniqueFailure(driver))));
  } catch (error) {
    await driver.close();
    throw error;
  }
  // Without the search index, every search reads every record (the index is gone).
  const searching: SqlEngine = target.searchIndex
    ? engine
    : {
        ...engine,
        dialect: { ...dialect, search: (table, needle, param) => dialect.search(table, needle, param, false) },
      };
  return {
    dialect: driver.name,
    synced,
    gauges: driver.gauges,
    collection: collectionLookup(catalog, (collection) => sqlCollection(searching, guard, collection, catalog)),
    idempotency: sqlIdempotencyKeys(engine, guard),
    changes: sqlChangeLog(engine, guard),
    accounts: sqlAccountTables(engine, guard),
    mail: sqlMailOutbox(driver, dialect, guard),
    fileUpkeep: sqlFileUpkeep(engine, guard),
    webhooks: sqlWebhooks(engine, guard),
    batch: sqlBatch(
      engine,
      guard,
      collectionLookup(catalog, (collection) => recordPrograms(searching.dialect, collection, catalog)),
    ),
    ping: () => guard(driver.ping()),
    close: () => driver.close(),
  };
}

/** The tables, indexes and references `catalog` asks of the database. */
export function tableTarget(
  catalog: Catalog,
  options: Pick<StoreOptions, 'searchIndex' | 'maxIndexedValueBytes' | 'enforceUnique'> = {},
): TableTarget {
  const { collections } = catalog;
  return {
    collections: catalog.names,
    indexes: collections.flatMap((collection) => collection.indexes),
    unique: options.enforceUnique === false ? [] : collections.flatMap((collection) => collection.unique),
    references: collections.flatMap((collection) => collection.references),
    searchIndex: options.searchIndex ?? true,
    maxIndexedValueBytes: options.maxIndexedValueBytes ?? 2000,
  };
}

export function isUniqueFailure(driver: Pick<SqlDriver, 'fault'>): (error: unknown) => boolean {
  return (error) => driver.fault(error)?.kind === 'unique';
}

/**
 * What the HTTP layer sees of a driver's error: unavailable or out of time (a 503), a
 * unique field taken (a 409 naming it), no ids left (a 507); anything else passes unchanged.
 */
function storeErrors(
  { driver, dialect }: Pick<SqlEngine, 'driver' | 'dialect'>,
  { collections, unique }: Pick<TableTarget, 'collections' | 'unique'>,
  options: Pick<StoreOptions, 'statementTimeoutMs'>,
): Guard {
  const uniqueByIndex = new Map(unique.map((field) => [uniqueIndexName(field), field]));
  const toStoreError = (error: unknown, table?: string): unknown => {
    const fault = driver.fault(error);
    switch (fault?.kind) {
      case 'unavailable':
        return new StoreUnavailableError(fault.message, { cause: error });
      case 'timeout':
        return new StatementTimeoutError(options.statementTimeoutMs, { cause: error });
      case 'unique':
        // Only a collection's own index is a conflict over a field (a taken id is not).
        return fault.violation && collections.includes(fault.violation.table)
          ? uniqueViolation(dialect, uniqueByIndex, fault.violation)
          : error;
      case 'ids-exhausted':
        return table === undefined ? error : new IdsExhaustedError(table);
      case 'index-entry-too-large':
        return new IndexedValueTooLargeError({ cause: error });
      default:
        return error;
    }
  };
  return (work, table) =>
    work.catch((error: unknown) => {
      throw toStoreError(error, table);
    });
}
