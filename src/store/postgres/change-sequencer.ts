/**
 * Numbering PostgreSQL's changes after they commit. The trigger of a write only appends
 * its changes to `change_inbox`, unnumbered: numbering them there (a counter row taken
 * until commit) or announcing them (NOTIFY takes a database-wide lock through commit) would
 * make every write to a collection wait for the one before it to commit, and lose
 * PostgreSQL's group commit: 1,300 inserts a second against 8,700 with the append alone
 * (pgbench, 50 clients, docs/decisions.md).
 *
 * Here, one transaction at a time across all instances (an advisory lock) moves what has
 * committed from the inbox into `changes`, numbering each collection's changes on from its
 * counter in the order they were appended, and notifies the feeds. Changes to one record
 * were appended in the order they committed (the second write waited for the first's row
 * lock), so each record's changes keep that order; a reader sees the numbers without gaps,
 * since each move commits whole and after the one before. Every instance runs it after its
 * own writes and once a second for anyone else's (a command, an instance that stopped).
 */
import type pg from 'pg';
import { type Program, sql } from '../sql/program.js';
import { CHANGES_CHANNEL } from './change-triggers.js';

/** The key of the advisory lock one move holds: any fixed number, the same in every instance. */
const SEQUENCER_LOCK = 0x7365_7173; // "seqs"

/**
 * Changes moved per pass: a backlog is worked off in bounded steps, each taking the changes
 * of whole transactions (those of the first this many, and the rest of theirs), so that a
 * feed never shows part of one: a batch's events arrive together or not yet.
 */
const PER_MOVE = 5000;

const POLL_MS = 1000;

const COLUMNS = 'kind, record_id, data, previous, version, created_at, updated_at, logged_at';

/**
 * The move, as one function, so that a pass is one statement and one round trip (a
 * statement of a PL/pgSQL function takes its snapshot when it starts: after the lock, so it
 * sees what the last move committed). Made on every start, with the change triggers.
 */
export function* syncChangeSequencer(): Program<void> {
  yield sql(`
    CREATE OR REPLACE FUNCTION restock_number_changes(batch integer) RETURNS integer LANGUAGE plpgsql AS $$
    DECLARE
      moved_count integer;
    BEGIN
      PERFORM pg_advisory_xact_lock(${SEQUENCER_LOCK});
      WITH moved AS (
        DELETE FROM change_inbox WHERE collection IN (SELECT collection FROM change_seqs) AND tx IN (
          SELECT i.tx FROM change_inbox i JOIN change_seqs s USING (collection) ORDER BY i.id LIMIT batch
        ) RETURNING *
      ), counts AS (
        SELECT collection, count(*) AS n FROM moved GROUP BY collection
      ), bumped AS (
        UPDATE change_seqs s SET seq = s.seq + c.n FROM counts c WHERE s.collection = c.collection
        RETURNING s.collection, s.seq - c.n AS base
      ), logged AS (
        INSERT INTO changes (collection, seq, ${COLUMNS})
        SELECT m.collection, b.base + row_number() OVER (PARTITION BY m.collection ORDER BY m.id), ${COLUMNS}
        FROM moved m JOIN bumped b USING (collection)
        RETURNING collection
      ), notified AS (
        SELECT pg_notify('${CHANGES_CHANNEL}', collection), count(*) AS n FROM logged GROUP BY collection
      )
      SELECT coalesce(sum(n), 0) INTO moved_count FROM notified;
      RETURN moved_count;
    END $$`);
}

export interface ChangeSequencer {
  /** Moves what has committed, soon; calls made while a move runs make one more after it. */
  wake(): void;
  /** Resolves once every change committed before the call is numbered. */
  settle(): Promise<void>;
  close(): Promise<void>;
}

export function startChangeSequencer(pool: pg.Pool): ChangeSequencer {
  let running: Promise<void> | undefined;
  let again = false;
  let closed = false;

  const moveOnce = async (): Promise<number> => {
    const { rows } = await pool.query<{ n: number }>({
      name: 'changes.number',
      text: 'SELECT restock_number_changes($1) AS n',
      values: [PER_MOVE],
    });
    return rows[0]?.n ?? 0;
  };

  const run = (): Promise<void> => {
    if (running) {
      again = true;
      return running;
    }
    running = (async () => {
      try {
        do {
          again = false;
          let moved = PER_MOVE;
          while (!closed && moved === PER_MOVE) moved = await moveOnce();
        } while (again && !closed);
      } finally {
        running = undefined;
      }
    })();
    return running;
  };

  // A failed move (the database away) is tried again at the next wake or poll.
  const wake = () => void run().catch(() => {});
  const poll = setInterval(wake, POLL_MS);
  poll.unref();
  wake();
  return {
    wake,
    // A move under way may have taken its snapshot before the caller's commit: run() then
    // makes one more pass after it.
    settle: run,
    async close() {
      closed = true;
      clearInterval(poll);
      await running?.catch(() => {});
    },
  };
}
