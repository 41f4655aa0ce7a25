/**
 * Writing an import: batches of consecutive records of one kind, each in one transaction, so
 * that the write lock is held for one batch at a time and the server's own writes go on
 * between them. What makes the whole import all or nothing is the undo: when a later line or
 * batch fails, every record the import wrote is deleted again, through the same delete a
 * client's `DELETE` runs.
 */
import { type Records, type StoredRecord, UniqueViolationError } from '../../store/store.js';
import { BadRecord, type Pending } from './record-line.js';

/** Deletes run this many at a time while undoing (SQLite's group commit makes them few commits). */
const UNDO_CONCURRENCY = 32;

export class ImportWriter {
  /** The ids this import wrote, in order: what an undo deletes. */
  readonly #written: number[] = [];
  created = 0;
  restored = 0;

  constructor(private readonly collection: Records) {}

  /**
   * Writes one batch in one transaction, accounts with their password hashes (plain-text
   * passwords hashed before: ./passwords.ts); a failure names the first line it can blame.
   */
  async write(batch: readonly Pending[]): Promise<void> {
    const hashes = batch.some((p) => p.hash !== undefined) ? batch.map((p) => p.hash) : undefined;
    try {
      if (batch[0]?.kept) {
        const records = batch.map((p) => p.kept as StoredRecord);
        await this.collection.restore(records, hashes);
        this.#written.push(...records.map((r) => r.id));
        this.restored += batch.length;
      } else {
        const made = await this.collection.createMany(
          batch.map((p) => p.data),
          undefined,
          hashes?.map((secret) => (secret === undefined ? undefined : { secret })),
        );
        this.#written.push(...made.map((r) => r.id));
        this.created += batch.length;
      }
    } catch (error) {
      throw await this.#blame(batch, error);
    }
  }

  /** Deletes every record this import wrote; resolves with how many it deleted. */
  async undo(): Promise<number> {
    let removed = 0;
    for (let from = 0; from < this.#written.length; from += UNDO_CONCURRENCY) {
      const ids = this.#written.slice(from, from + UNDO_CONCURRENCY);
      const gone = await Promise.all(ids.map((id) => this.collection.remove(id)));
      removed += gone.filter(Boolean).length;
    }
    this.#written.length = 0;
    return removed;
  }

  async #blame(batch: readonly Pending[], error: unknown): Promise<Error> {
    const seen = new Set<number>();
    for (const pending of batch) {
      if (!pending.kept) continue;
      const { id } = pending.kept;
      if (seen.has(id)) return new BadRecord(pending.line, `id ${id} appears twice`);
      seen.add(id);
      if (await this.collection.get(id)) {
        return new BadRecord(pending.line, `id ${id} is already taken (use --new-ids to renumber)`);
      }
    }
    if (error instanceof UniqueViolationError) {
      const field = error.path.join('.');
      return new Error(`a record here has a value of ${field} that another record has (${field} must be unique)`);
    }
    return new Error(`the batch could not be written: ${(error as Error).message}`);
  }
}
