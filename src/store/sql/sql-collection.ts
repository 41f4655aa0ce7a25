/**
 * A collection's records on any SQL database: reads, creates, merges, deletes and their
 * conditions, written once over a {@link SqlDriver}. What differs between databases is in
 * their dialect (the SQL) and driver (how a unit of work runs).
 */
import type { Catalog } from '../../core/catalog.js';
import type { Collection } from '../../core/collection.js';
import { heldIds } from '../../core/references.js';
import { mergedFields, versionMatches } from '../merge-patch.js';
import {
  IdempotencyConflictError,
  MAX_MANY,
  PreconditionFailedError,
  type Records,
  type StoredRecord,
  type WriteConditions,
} from '../store.js';
import { MAX_REFERRERS_CHANGED, releaseReferrers } from './delete-referrers.js';
import type { Guard } from './driver.js';
import type { SqlEngine } from './engine.js';
import { indexedIn } from './index-sql.js';
import { chunked, insertRows } from './insert-rows.js';
import { listedRecord, selectCount, selectPage } from './list-sql.js';
import { first, type Program, sql as plain, type Result } from './program.js';
import { planVerdicts } from './query-plan.js';
import { collectionSql, recordColumns } from './record-sql.js';
import { holdTargets, link, unlink } from './reference-sql.js';
import { secretSql } from './secret-sql.js';
import { completeClaim } from './sql-idempotency.js';
import { selectByUniqueSql, selectDuplicatesSql, toDuplicate } from './unique-sql.js';

const records = (result: Result) => result.rows as unknown as StoredRecord[];
const isoNow = () => new Date().toISOString();

export function sqlCollection(engine: SqlEngine, guard: Guard, collection: Collection, catalog: Catalog): Records {
  const { driver, dialect, adapter } = engine;
  const table = collection.plural;
  const sql = collectionSql(dialect, table);
  const columns = recordColumns(dialect);
  const isIndexed = indexedIn(collection);
  const isCostly = planVerdicts(engine, table, isIndexed);
  const { references } = collection;
  // Collections without references write in one statement; with them, in a transaction
  // that also holds the records named and keeps record_refs (./reference-sql.ts).
  const refers = references.length > 0;
  const referred = collection.referrers.length > 0;
  const parse = (data: string): unknown => JSON.parse(data);
  const secrets = collection.account ? secretSql(dialect, table) : undefined;
  /** The passwords of an account collection; any other keeps none, and asking is a mistake in the code. */
  const passwords = () => {
    if (!secrets) throw new Error(`${table} holds no accounts: no passwords`);
    return secrets;
  };
  function* keepSecrets(written: readonly { id: number }[], hashes?: readonly (string | undefined)[]): Program<void> {
    if (hashes?.some((hash) => hash !== undefined)) yield* passwords().keep(written, hashes);
  }
  /** Holds the records `created` name, writes them, and returns them. */
  function* linked(created: StoredRecord[]): Program<StoredRecord[]> {
    if (refers) {
      const parsed = created.map((record) => ({ id: record.id, fields: parse(record.data) }));
      yield* link(dialect, table, references, parsed);
    }
    return created;
  }
  /**
   * After a change from `before` to `after`: holds the records it now names (when `check`)
   * and rewrites its rows of record_refs, if the ids it names changed.
   */
  function* relink(before: StoredRecord, after: StoredRecord, check: boolean): Program<void> {
    const [was, now] = [parse(before.data), parse(after.data)];
    const ids = (fields: unknown) => JSON.stringify(references.map((r) => heldIds(fields, r).map((h) => h.id)));
    if (ids(was) === ids(now)) return;
    if (check) yield* holdTargets(dialect, references, [{ fields: now, at: '' }]);
    yield unlink(dialect, table, after.id);
    yield* link(dialect, table, references, [{ id: after.id, fields: now }]);
  }
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
    async create(data, idempotency, secret) {
      const insert = sql.insert({ data, now: isoNow() });
      if (!idempotency && !refers && secret === undefined) {
        return records(await guard(driver.write(insert), table))[0] as StoredRecord;
      }
      const work = function* (): Program<StoredRecord> {
        if (refers) yield* holdTargets(dialect, references, [{ fields: parse(data), at: '' }]);
        const [record] = (yield* linked(records(yield insert))) as [StoredRecord];
        yield* keepSecrets([record], [secret]);
        if (!idempotency) return record;
        const done = yield completeClaim(dialect, table, record, idempotency);
        if (done.changes !== 1) throw new IdempotencyConflictError();
        return record;
      };
      return guard(driver.transaction(work), table);
    },
    createMany(data, idempotency, hashes) {
      const work = function* (): Program<StoredRecord[]> {
        const now = isoNow();
        const head = `INSERT INTO "${table}" (data, created_at, updated_at)`;
        const tail = ` RETURNING ${columns}`;
        const created: StoredRecord[] = [];
        if (refers) {
          const named = data.map((item, i) => ({ fields: parse(item), at: `/${i}` }));
          yield* holdTargets(dialect, references, named);
        }
        for (const chunk of chunked(data)) {
          const insert = insertRows(dialect, [head, tail], chunk, (item, param) => {
            const at = dialect.now(() => param(now));
            return `${dialect.json(param(item), false)}, ${at}, ${at}`;
          });
          created.push(...records(yield insert));
        }
        // Ids are drawn in the order of the rows: in id order is in the order given.
        created.sort((a, b) => a.id - b.id);
        yield* linked(created);
        yield* keepSecrets(created, hashes);
        if (idempotency) {
          const done = yield completeClaim(dialect, table, created, idempotency);
          if (done.changes !== 1) throw new IdempotencyConflictError();
        }
        return created;
      };
      return guard(driver.transaction(work), table);
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
    merge(id, patch, { check, ifVersion, maxBytes, allow, secret }: WriteConditions = {}) {
      const work = function* (): Program<StoredRecord | undefined> {
        const current = yield* first<StoredRecord>(sql.lock({ id }));
        if (current) allow?.(current);
        if (!current || !versionMatches(ifVersion, current.version)) {
          if (ifVersion !== undefined) throw new PreconditionFailedError();
          return undefined;
        }
        if (secret !== undefined) yield* passwords().change(id, secret);
        const data = mergedFields(current.data, patch, maxBytes);
        const record = records(yield sql.update({ id, data, now: isoNow() }))[0] as StoredRecord;
        check?.(record.data);
        if (refers) yield* relink(current, record, true);
        return record;
      };
      return guard(driver.transaction(work), table);
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
    async remove(id, { ifVersion, allow } = {}) {
      const versions = ifVersion === undefined || ifVersion === '*' ? undefined : ifVersion;
      if (versions?.length === 0) throw new PreconditionFailedError();
      const remove = versions ? sql.removeIf({ id, versions: dialect.intList(versions) }) : sql.remove({ id });
      const work = function* (): Program<StoredRecord | undefined> {
        if (allow) {
          const current = yield* first<StoredRecord>(sql.lock({ id }));
          if (current) allow(current);
        }
        const removed = records(yield remove)[0];
        if (!removed) return undefined;
        if (secrets) yield* secrets.remove(id);
        if (refers) yield unlink(dialect, table, id);
        if (referred) yield* releaseReferrers(dialect, catalog, table, id, { left: MAX_REFERRERS_CHANGED });
        return removed;
      };
      const record =
        refers || referred || secrets || allow
          ? await guard(driver.transaction(work), table)
          : records(await guard(driver.write(remove), table))[0];
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
