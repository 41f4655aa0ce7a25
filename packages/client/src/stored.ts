/** What every record holds: the fields restock keeps, beside the client's own. */

/** The fields restock keeps on every record. */
export interface SystemFields {
  readonly id: number;
  readonly createdAt: string;
  readonly updatedAt: string;
}

/** A record as restock stores it: the client's fields and the system's. */
export type Stored<T> = T & SystemFields;
