/**
 * A collection's writes as programs (./program.ts): a create, a merge, a delete and a read
 * under the write's lock, each with its references, passwords and conditions, written
 * once. A request alone runs one of them in a transaction of its own (./sql-collection.ts);
 * a batch runs several, of several collections, in one (./sql-batch.ts).
 */
import type { Catalog } from '../../core/catalog.js';
import type { Collection } from '../../core/collection.js';
import { heldIds } from '../../core/references.js';
import { mergedFields, versionMatches } from '../merge-patch.js';
import {
  type AccountWrite,
  IdempotencyConflictError,
  type IdempotentCreate,
  PreconditionFailedError,
  type RemoveConditions,
  type StoredRecord,
  type WriteConditions,
} from '../store.js';
import { flowSql, secretSql } from './accounts/index.js';
import { MAX_REFERRERS_CHANGED, releaseReferrers } from './delete-referrers.js';
import type { SqlDialect } from './dialect.js';
import { chunked, insertRows } from './insert-rows.js';
import { first, type Program, type Result } from './program.js';
import { collectionSql, recordColumns } from './record-sql.js';
import { holdTargets, link, unlink } from './reference-sql.js';
import { completeClaim } from './sql-idempotency.js';

export const records = (result: Result) => result.rows as unknown as StoredRecord[];
export const isoNow = () => new Date().toISOString();

export interface RecordPrograms {
  /** Whether a create needs more than its INSERT (references, a password, a key). */
  readonly refers: boolean;
  /** Whether a delete needs more than its DELETE (references either way, a password). */
  readonly removeNeedsMore: boolean;
  /** The record as it is (unlocked: a batch that changes it after takes its lock then). */
  read(id: number): Program<StoredRecord | undefined>;
  /** Takes the lock a merge takes on each of `ids` there is, in id order (a batch's, before its first step). */
  lockToChange(ids: readonly number[]): Program<void>;
  create(data: string, idempotency?: IdempotentCreate, account?: AccountWrite): Program<StoredRecord>;
  /** Many creates as one multi-row INSERT per chunk: the records in the order given. */
  createMany(
    data: readonly string[],
    idempotency?: IdempotentCreate,
    accounts?: readonly (AccountWrite | undefined)[],
  ): Program<StoredRecord[]>;
  /** Holds the records `created` name and writes their rows of record_refs. */
  linked(created: StoredRecord[]): Program<StoredRecord[]>;
  keepSecrets(written: readonly { id: number }[], hashes?: readonly (string | undefined)[]): Program<void>;
  /** What the accounts `written` carry beside them (`accounts[i]`, `written[i]`'s): passwords, verified states, mail. */
  keepAccounts(written: readonly { id: number }[], accounts?: readonly (AccountWrite | undefined)[]): Program<void>;
  merge(id: number, patch: string | object, conditions: WriteConditions): Program<StoredRecord | undefined>;
  /** A delete; with `ifVersion`, a record that is not there (or not at it) throws {@link PreconditionFailedError}. */
  remove(id: number, conditions: RemoveConditions): Program<StoredRecord | undefined>;
  /** The password hashes of an account collection (a mistake in the code for any other). */
  passwords(): NonNullable<ReturnType<typeof secretSql>>;
}

/**
 * The record a change or delete under `conditions` goes ahead with, read under the write's
 * lock: undefined when there is none, and so when the caller may not see it, which answers
 * exactly as a missing id does (a {@link PreconditionFailedError} under `ifVersion`). One it
 * may see meets `allow` (a refusal there comes before any `ifVersion`: the caller may not do
 * this at all), then `ifVersion`.
 */
function seen(current: StoredRecord | undefined, conditions: RemoveConditions): StoredRecord | undefined {
  const { ifVersion, visible, allow } = conditions;
  const found = current && (visible?.(current) ?? true) ? current : undefined;
  if (found) allow?.(found);
  if (found && versionMatches(ifVersion, found.version)) return found;
  if (ifVersion !== undefined) throw new PreconditionFailedError();
  return undefined;
}

export function recordPrograms(dialect: SqlDialect, collection: Collection, catalog: Catalog): RecordPrograms {
  const table = collection.plural;
  const sql = collectionSql(dialect, table);
  const { references } = collection;
  const refers = references.length > 0;
  const referred = collection.referrers.length > 0;
  const parse = (data: string): unknown => JSON.parse(data);
  const secrets = collection.account ? secretSql(dialect, table) : undefined;
  const passwords = () => {
    if (!secrets) throw new Error(`${table} holds no accounts: no passwords`);
    return secrets;
  };
  const flows = collection.account ? flowSql(dialect) : undefined;
  function* keepSecrets(written: readonly { id: number }[], hashes?: readonly (string | undefined)[]): Program<void> {
    if (hashes?.some((hash) => hash !== undefined)) yield* passwords().keep(written, hashes);
  }
  function* keepAccounts(
    written: readonly { id: number }[],
    accounts?: readonly (AccountWrite | undefined)[],
  ): Program<void> {
    if (!accounts?.some((account) => account !== undefined)) return;
    yield* keepSecrets(
      written,
      accounts.map((account) => account?.secret),
    );
    for (const [i, { id }] of written.entries()) {
      const account = accounts[i];
      if (flows && account && (account.verified !== undefined || account.mail)) {
        yield* flows.accountEffects(table, id, account);
      }
    }
  }
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
    refers,
    removeNeedsMore: refers || referred || secrets !== undefined,
    read: (id) => first<StoredRecord>(sql.get({ id })),
    *lockToChange(ids) {
      yield sql.lockManyToChange({ ids: dialect.intList([...ids].sort((a, b) => a - b)) });
    },
    *create(data, idempotency, account) {
      if (refers) yield* holdTargets(dialect, references, [{ fields: parse(data), at: '' }]);
      const [record] = (yield* linked(records(yield sql.insert({ data, now: isoNow() })))) as [StoredRecord];
      yield* keepAccounts([record], [account]);
      if (!idempotency) return record;
      const done = yield completeClaim(dialect, table, record, idempotency);
      if (done.changes !== 1) throw new IdempotencyConflictError();
      return record;
    },
    *createMany(data, idempotency, accounts) {
      const now = isoNow();
      const head = `INSERT INTO "${table}" (data, created_at, updated_at)`;
      const tail = ` RETURNING ${recordColumns(dialect)}`;
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
      yield* keepAccounts(created, accounts);
      if (idempotency) {
        const done = yield completeClaim(dialect, table, created, idempotency);
        if (done.changes !== 1) throw new IdempotencyConflictError();
      }
      return created;
    },
    linked,
    keepSecrets,
    keepAccounts,
    *merge(id, patch, conditions) {
      const { check, maxBytes, secret, spend, verified, mail, resolve } = conditions;
      const current = seen(yield* first<StoredRecord>(sql.lockToChange({ id })), conditions);
      if (!current) return undefined;
      if (flows && (spend || verified !== undefined || mail)) yield* flows.accountEffects(table, id, conditions);
      if (secret !== undefined) yield* passwords().change(id, secret);
      const resolved = resolve ? resolve(current, typeof patch === 'string' ? JSON.parse(patch) : patch) : patch;
      const data = mergedFields(current.data, resolved, maxBytes);
      const record = records(yield sql.update({ id, data, now: isoNow() }))[0] as StoredRecord;
      check?.(record.data);
      if (refers) yield* relink(current, record, true);
      return record;
    },
    *remove(id, conditions) {
      const { ifVersion, visible, allow } = conditions;
      const versions = ifVersion === undefined || ifVersion === '*' ? undefined : ifVersion;
      if (visible || allow) {
        if (!seen(yield* first<StoredRecord>(sql.lock({ id })), conditions)) return undefined;
      } else if (versions?.length === 0) throw new PreconditionFailedError();
      const removed = records(
        yield versions ? sql.removeIf({ id, versions: dialect.intList(versions) }) : sql.remove({ id }),
      )[0];
      if (!removed) {
        if (ifVersion !== undefined) throw new PreconditionFailedError();
        return undefined;
      }
      if (secrets) yield* secrets.remove(id);
      if (flows) yield* flows.forget(table, id);
      if (refers) yield unlink(dialect, table, id);
      if (referred) yield* releaseReferrers(dialect, catalog, table, id, { left: MAX_REFERRERS_CHANGED });
      return removed;
    },
    passwords,
  };
}
