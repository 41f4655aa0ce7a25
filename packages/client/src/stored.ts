/**
 * What every record holds: the fields restock keeps, beside the client's own; and what a
 * record type's notes (below) take out of a read or leave optional in a create.
 */

/** The fields restock keeps on every record. */
export interface SystemFields {
  readonly id: number;
  readonly createdAt: string;
  readonly updatedAt: string;
}

/**
 * The member of a record type in which `restock types` notes what the schema says beyond
 * the fields' types: `{ writeOnly: 'password'; owner: 'userId' }`. A string key, not a
 * symbol, so that the generated file imports nothing from this package. It is never sent
 * nor received; the client's types read it and leave it out of every record.
 */
export type NotesKey = '~restock';

/** What the notes may say: the fields written but never read back, the `x-owner` field, the file fields. */
export interface RecordNotes {
  writeOnly?: string;
  owner?: string;
  files?: string;
}

/** The notes `T` carries, if any (`unknown` for a type that declares none). */
type NotesOf<T> = NotesKey extends keyof T ? Exclude<T[NotesKey & keyof T], undefined> : unknown;

/** The fields of `T` that a create or change may send but no read returns (an account's `password`). */
export type WriteOnlyOf<T> = NotesOf<T> extends { writeOnly: infer W extends string } ? W : never;

/** The field restock fills from the signed-in account on create (`x-owner`). */
export type OwnerOf<T> = NotesOf<T> extends { owner: infer O extends string } ? O : never;

/** The fields of `T` that hold files (`x-file`): a write may give them uploads. */
export type FilesOf<T> = NotesOf<T> extends { files: infer F extends string } ? F : never;

/** Whether `T` declares notes of its own (an index signature alone does not). */
type Noted<T> = NotesKey extends keyof T
  ? string extends keyof T
    ? NotesOf<T> extends RecordNotes
      ? true
      : false
    : true
  : false;

/** `T` without the keys `K`, keeping its index signature and each field's `?` (unlike `Omit`). */
type Without<T, K> = { [P in keyof T as P extends K ? never : P]: T[P] };

/** The fields a read returns: `T` without its notes and its write-only fields. */
export type Readable<T> = Noted<T> extends true ? Without<T, NotesKey | WriteOnlyOf<T>> : T;

/** What a create sends: `T` without its notes, its owner field optional (restock fills it for an account). */
export type Creatable<T> =
  Noted<T> extends true ? Without<T, NotesKey | OwnerOf<T>> & { [P in OwnerOf<T> & keyof T]?: T[P] } : T;

/** `T` without its notes: what a change sends (the owner stays: only an API key may change it). */
export type Writable<T> = Noted<T> extends true ? Without<T, NotesKey> : T;

/** A record as restock answers it: the client's fields (write-only ones left out) and the system's. */
export type Stored<T> = Readable<T> & SystemFields;
