/**
 * What the store keeps for the files' upkeep (src/records/files/): how far the reaper has
 * followed each collection's change log, and the file fields' values read page by page for
 * the sweep, without the rest of the records.
 */

/** One record's file fields, as JSON text each ('' where the field is null or missing). */
export interface FileFieldValues {
  readonly id: number;
  readonly values: readonly string[];
}

export interface FileUpkeep {
  /** The last change of `collection` whose old files are removed (0: none yet). */
  reaped(collection: string): Promise<number>;
  /**
   * Records that the old files of `collection`'s changes up to `seq` are removed. Never moves
   * back: an instance that finished an earlier page after another finished a later one changes nothing.
   */
  advance(collection: string, seq: number): Promise<void>;
  /** The values of `fields` (top-level file fields) of up to `limit` records of `collection` after id `after`, by id. */
  fileValues(collection: string, fields: readonly string[], after: number, limit: number): Promise<FileFieldValues[]>;
}
