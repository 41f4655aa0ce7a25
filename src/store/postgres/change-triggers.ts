/**
 * PostgreSQL's half of the change log (../sql/change-log-sql.ts): one trigger function,
 * run once per statement (not per row) on each collection's table, with the rows the
 * statement changed as transition tables. It appends them, in id order, to `change_inbox`,
 * in the write's own transaction and unnumbered: ./change-sequencer.ts numbers them once
 * they have committed, and notifies `restock_changes`. Per statement, because one
 * transaction updating one row n times costs far more than n times one update (each new
 * version must find the last): an INSERT of 100,000 rows took over a minute with a row trigger.
 */
import { type Program, sql } from '../sql/program.js';
import { triggerOnce } from './trigger-once.js';

/** The channel PostgreSQL notifies of newly numbered changes, its payload the collection's name. */
export const CHANGES_CHANNEL = 'restock_changes';

/** What each statement of a collection logs, from which transition tables. */
const EVENTS = [
  { kind: 'created', event: 'INSERT', referencing: 'NEW TABLE AS new_rows' },
  { kind: 'updated', event: 'UPDATE', referencing: 'OLD TABLE AS old_rows NEW TABLE AS new_rows' },
  { kind: 'deleted', event: 'DELETE', referencing: 'OLD TABLE AS old_rows' },
] as const;

const COLUMNS = 'collection, kind, record_id, data, previous, version, created_at, updated_at, logged_at';

/** The rows a change logs, for each kind of statement. */
const LOGGED = (row: string, previous: string) =>
  `SELECT TG_TABLE_NAME, TG_ARGV[0], r.id, r.data::text, ${previous}, r.version, r.created_at, r.updated_at,
     restock_now() FROM ${row} ORDER BY r.id`;

/** The function, and the triggers of each of `tables` where missing. */
export function* syncChangeTriggers(tables: readonly string[]): Program<void> {
  yield sql(`
    CREATE OR REPLACE FUNCTION restock_log_changes() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      IF TG_OP = 'INSERT' THEN
        INSERT INTO change_inbox (${COLUMNS}) ${LOGGED('new_rows r', 'NULL')};
      ELSIF TG_OP = 'UPDATE' THEN
        INSERT INTO change_inbox (${COLUMNS}) ${LOGGED('new_rows r JOIN old_rows o ON o.id = r.id', 'o.data::text')};
      ELSE
        INSERT INTO change_inbox (${COLUMNS}) ${LOGGED('old_rows r', 'NULL')};
      END IF;
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

/** Where writes leave their changes until they are numbered (./change-sequencer.ts). */
export function* createChangeInbox(): Program<void> {
  yield sql(`CREATE TABLE change_inbox (
    id         bigserial PRIMARY KEY,
    collection text NOT NULL,
    kind       text NOT NULL,
    record_id  bigint NOT NULL,
    data       text NOT NULL,
    previous   text,
    version    integer NOT NULL,
    created_at text NOT NULL,
    updated_at text NOT NULL,
    logged_at  text NOT NULL
  )`);
}
