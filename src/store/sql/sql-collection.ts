/**
 * A collection's records on any SQL database: reads, creates, merges, deletes and their
 * conditions, written once over a {@link SqlDriver}. What differs between databases is in
 * their dialect (the SQL) and driver (how a unit of work runs).
 */
import type { Catalog } from '../../core/catalog.js';
import type { Collection } from '../../core/collection.js';
import { MAX_MANY, PreconditionFailedError, type Records, type StoredRecord } from '../store.js';
import { secretSql } from './accounts/index.js';
import type { Guard } from './driver.js';
import type { SqlEngine } from './engine.js';
import { indexedIn } from './index-sql.js';
import { chunked, insertRows } from './insert-rows.js';
import { listedRecord, selectCount, selectPage } from './list-sql.js';
import { type Program, sql as plain } from './program.js';
import { planVerdicts } from './query-plan.js';
import { isoNow, recordPrograms, records } from './record-programs.js';
import { collectionSql, recordColumns } from './record-sql.js';
import { unlink } from './reference-sql.js';
import { selectByUniqueSql, selectDuplicatesSql, toDuplicate } from './unique-sql.js';

export function sqlCollection(engine: SqlEngine, guard: Guard, collection: Collection, catalog: Catalog): Records {
  const { driver, dialect, adapter } = engine;
  const table = collection.plural;
  const sql = collectionSql(dialect, table);
  const columns = recordColumns(dialect);
  const isIndexed = indexedIn(collection);
  const isCostly = planVerdicts(engine, table, isIndexed);
  const programs = recordPrograms(dialect, collection, catalog);
  // Collections without references write in one statement; with them, in a transaction
  // that also holds the records named and keeps record_refs (./reference-sql.ts).
  const { refers, linked, keepSecrets, passwords } = programs;
  const secrets = collection.account ? secretSql(dialect, table) : undefined;
  return {
    async list(query) {
      const { maxBytes } = query;
      const page = selectPage(
        engine,
        isIndexed,
        table,
        columns,
        adapter.stopsAtBytes ? { ...query, maxBytes: undefined } : query,
      );
      const costly = await guard(isCostly(query));
      const { rows } = await guard(driver.read(page, costly, maxBytes));
      return rows.map((row) => listedRecord(row, page.positionColumns));
    },
    isCostly: (query) => guard(isCostly(query)),
    async count(query) {
      const { rows } = await guard(driver.read(selectCount(dialect, isIndexed, table, query), true));
      return Number(rows[0]?.n ?? 0);
    },
    async get(id) {
      return records(await guard(driver.read(sql.get({ id }), false)))[0];
    },
    async getMany(ids) {
      const found: StoredRecord[] = [];
      for (let at = 0; at < ids.length; at += MAX_MANY) {
        const some = dialect.intList(ids.slice(at, at + MAX_MANY));
        found.push(...records(await guard(driver.read(sql.getMany({ ids: some }), false))));
      }
      return found;
    },
    async create(data, idempotency, account) {
      if (!idempotency && !refers && account === undefined) {
        return records(await guard(driver.write(sql.insert({ data, now: isoNow() })), table))[0] as StoredRecord;
      }
      return guard(
        driver.transaction(() => programs.create(data, idempotency, account)),
        table,
      );
    },
    createMany(data, idempotency, accounts) {
      return guard(
        driver.transaction(() => programs.createMany(data, idempotency, accounts)),
        table,
      );
    },
    async restore(items, hashes) {
      const work = function* (): Program<void> {
        const head = `INSERT INTO "${table}" (id, data, version, created_at, updated_at) ${dialect.explicitIds}`;
        for (const chunk of chunked(items)) {
          yield insertRows(dialect, [head, ''], chunk, (r, param) =>
            [
              param(r.id),
              dialect.json(param(r.data), true),
              param(r.version),
              param(r.createdAt),
              param(r.updatedAt),
            ].join(', '),
          );
        }
        if (dialect.afterExplicitIds) yield plain(dialect.afterExplicitIds(table));
        // Restored as they were: references are kept, not checked (records may come before those they name).
        yield* linked([...items]);
        yield* keepSecrets(items, hashes);
      };
      if (items.length > 0) await guard(driver.transaction(work), table);
    },
    merge(id, patch, conditions = {}) {
      return guard(
        driver.transaction(() => programs.merge(id, patch, conditions)),
        table,
      );
    },
    async replace(id, data, secret) {
      const update = sql.update({ id, data, now: isoNow() });
      if (!refers && secret === undefined) return records(await guard(driver.write(update), table))[0];
      const work = function* (): Program<StoredRecord | undefined> {
        const record = records(yield update)[0];
        if (record && secret !== undefined) yield* passwords().change(id, secret);
        if (record && refers) {
          yield unlink(dialect, table, id);
          yield* linked([record]);
        }
        return record;
      };
      return guard(driver.transaction(work), table);
    },
    async remove(id, conditions = {}) {
      if (programs.removeNeedsMore || conditions.visible || conditions.allow) {
        return guard(
          driver.transaction(() => programs.remove(id, conditions)),
          table,
        );
      }
      // One statement: the version condition, when there is one, is part of the DELETE.
      const { ifVersion } = conditions;
      const versions = ifVersion === undefined || ifVersion === '*' ? undefined : ifVersion;
      if (versions?.length === 0) throw new PreconditionFailedError();
      const remove = versions ? sql.removeIf({ id, versions: dialect.intList(versions) }) : sql.remove({ id });
      const record = records(await guard(driver.write(remove), table))[0];
      if (!record && ifVersion !== undefined) throw new PreconditionFailedError();
      return record;
    },
    async findUnique(field, value) {
      const wanted = field.ignoreCase ? value.replace(/[A-Z]+/g, (letters) => letters.toLowerCase()) : value;
      const select = selectByUniqueSql(dialect, { ...field, collection: table }, columns, wanted);
      return records(await guard(driver.read(select, false)))[0];
    },
    async secretOf(id) {
      return (await this.secretsOf([id])).get(id);
    },
    async secretsOf(ids) {
      const found = new Map<number, string>();
      for (let at = 0; secrets && at < ids.length; at += MAX_MANY) {
        const { rows } = await guard(driver.read(secrets.getMany(ids.slice(at, at + MAX_MANY)), false));
        for (const row of rows) found.set(Number(row.id), String(row.hash));
      }
      return found;
    },
    async duplicates(field, limit) {
      const found = await guard(
        driver.read(plain(selectDuplicatesSql(dialect, { ...field, collection: table }, limit)), true),
      );
      return found.rows.map((row) => toDuplicate(row as never));
    },
  };
}
