/** A record as the store keeps it, which every other model of the store builds on. */

/** A record as stored: the client's fields as JSON object text, plus the system fields. */
export interface StoredRecord {
  id: number;
  /**
   * The client's fields as JSON object text, as the database writes it (SQLite keeps the
   * compact text it was given; PostgreSQL's jsonb adds blanks and orders keys its own way).
   */
  data: string;
  /** Starts at 1 and grows by one with every change; the basis of the ETag. */
  version: number;
  createdAt: string;
  updatedAt: string;
}
