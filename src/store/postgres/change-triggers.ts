/**
 * PostgreSQL's half of the change log (../sql/change-log-sql.ts): one trigger function,
 * run once per statement (not per row) on each collection's table, with the rows the
 * statement changed as transition tables. It takes as many numbers as rows from the
 * collection's counter row, in one update whose lock it then holds until commit (so
 * numbers follow commit order), logs the changes in id order, and notifies
 * `restock_changes`, which PostgreSQL delivers only once the transaction commits: every
 * instance listening learns of it at once. Per statement, because one transaction
 * updating one row n times costs far more than n times one update (each new version
 * must find the last): an INSERT of 100,000 rows took over a minute with a row trigger.
 */
import { type Program, sql } from '../sql/program.js';
import { triggerOnce } from './trigger-once.js';

/** The channel PostgreSQL notifies of each committed change, its payload the collection's name. */
export const CHANGES_CHANNEL = 'restock_changes';

/** What each statement of a collection logs, from which transition tables. */
const EVENTS = [
  { kind: 'created', event: 'INSERT', referencing: 'NEW TABLE AS new_rows' },
  { kind: 'updated', event: 'UPDATE', referencing: 'OLD TABLE AS old_rows NEW TABLE AS new_rows' },
  { kind: 'deleted', event: 'DELETE', referencing: 'OLD TABLE AS old_rows' },
] as const;

const COLUMNS = 'collection, seq, kind, record_id, data, previous, version, created_at, updated_at, logged_at';

/** The rows a change logs, numbered from `first`, for each kind of statement. */
const LOGGED = (row: string, previous: string) =>
  `SELECT TG_TABLE_NAME, first_seq + row_number() OVER (ORDER BY r.id) - 1, TG_ARGV[0], r.id, r.data::text,
     ${previous}, r.version, r.created_at, r.updated_at, restock_now() FROM ${row}`;

/** The function, and the triggers of each of `tables` where missing. */
export function* syncChangeTriggers(tables: readonly string[]): Program<void> {
  yield sql(`
    CREATE OR REPLACE FUNCTION restock_log_changes() RETURNS trigger LANGUAGE plpgsql AS $$
    DECLARE
      changed bigint;
      first_seq bigint;
    BEGIN
      IF TG_OP = 'DELETE' THEN SELECT count(*) INTO changed FROM old_rows;
      ELSE SELECT count(*) INTO changed FROM new_rows; END IF;
      IF changed = 0 THEN RETURN NULL; END IF;
      UPDATE change_seqs SET seq = seq + changed WHERE collection = TG_TABLE_NAME
        RETURNING seq - changed + 1 INTO first_seq;
      IF TG_OP = 'INSERT' THEN
        INSERT INTO changes (${COLUMNS}) ${LOGGED('new_rows r', 'NULL')};
      ELSIF TG_OP = 'UPDATE' THEN
        INSERT INTO changes (${COLUMNS}) ${LOGGED('new_rows r JOIN old_rows o ON o.id = r.id', 'o.data::text')};
      ELSE
        INSERT INTO changes (${COLUMNS}) ${LOGGED('old_rows r', 'NULL')};
      END IF;
      PERFORM pg_notify('${CHANGES_CHANNEL}', TG_TABLE_NAME);
      RETURN NULL;
    END $$`);
  for (const table of tables) {
    for (const { kind, event, referencing } of EVENTS) {
      yield* triggerOnce(
        table,
        `${table}_log_${kind}`,
        `AFTER ${event} ON "${table}" REFERENCING ${referencing} FOR EACH STATEMENT ` +
          `EXECUTE FUNCTION restock_log_changes('${kind}')`,
      );
    }
  }
}
