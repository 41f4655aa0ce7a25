/**
 * `restock import --upsert FIELD`: a record that matches a stored one on FIELD (`id`, or a
 * unique field the collection's schema declares) replaces its fields; the others are created
 * as a plain import creates them. Running the same file twice leaves what one run leaves, so
 * a run that stopped part way is finished by running it again.
 */
import { ConfigError } from '../../config/index.js';
import type { CollectionSchema } from '../../core/collection-schema.js';
import { type Condition, MAX_IN_VALUES, type Records, type StoredRecord } from '../../store/store.js';
import { ImportWriter } from './import-writer.js';
import type { Pending } from './record-line.js';

export class Upserter {
  replaced = 0;
  readonly #creator: ImportWriter;
  readonly #path: readonly string[] | undefined;

  constructor(
    private readonly collection: Records,
    field: string,
    schema: CollectionSchema | undefined,
  ) {
    this.#creator = new ImportWriter(collection);
    if (field === 'id') return;
    const unique = schema?.unique.find((u) => u.path.join('.') === field && !u.ignoreCase);
    if (!unique) {
      const fields = (schema?.unique ?? []).filter((u) => !u.ignoreCase).map((u) => u.path.join('.'));
      throw new ConfigError(
        `--upsert takes id or a unique field the collection's schema declares (x-unique, not ignoring case): ` +
          `${['id', ...fields].join(', ')}; got "${field}"`,
      );
    }
    this.#path = unique.path;
  }

  get created(): number {
    return this.#creator.created + this.#creator.restored;
  }

  /** Replaces the batch's records that match a stored one, and creates the others. */
  async write(batch: readonly Pending[]): Promise<void> {
    const keys = batch.map((pending) => this.#keyOf(pending));
    const wanted = keys.filter((key) => key !== undefined);
    const stored = new Map<string, number>();
    const field: Condition['field'] = this.#path ? { path: this.#path } : 'id';
    for (let start = 0; start < wanted.length; start += MAX_IN_VALUES) {
      const value = wanted.slice(start, start + MAX_IN_VALUES);
      const found = await this.collection.list({ where: [{ field, op: 'in', value }], sort: [], limit: value.length });
      for (const record of found) stored.set(JSON.stringify(this.#storedKey(record)), record.id);
    }
    const fresh: Pending[] = [];
    const replacing: Promise<unknown>[] = [];
    // An account's password is replaced only when its line gives one: an export made without
    // --password-hashes, imported again, leaves everyone's password as it is.
    for (const [i, pending] of batch.entries()) {
      const id = stored.get(JSON.stringify(keys[i]));
      if (id === undefined) fresh.push(pending);
      else replacing.push(this.collection.replace(id, pending.data, pending.hash));
    }
    await Promise.all(replacing);
    this.replaced += replacing.length;
    if (fresh.length > 0) await this.#creator.write(fresh);
  }

  #keyOf(pending: Pending): string | number | undefined {
    if (!this.#path) return pending.kept?.id;
    return scalarAt(pending.fields, this.#path);
  }

  #storedKey(record: StoredRecord): string | number | undefined {
    return this.#path ? scalarAt(JSON.parse(record.data) as Record<string, unknown>, this.#path) : record.id;
  }
}

function scalarAt(fields: Record<string, unknown>, path: readonly string[]): string | number | undefined {
  let value: unknown = fields;
  for (const segment of path) {
    value = value !== null && typeof value === 'object' ? (value as Record<string, unknown>)[segment] : undefined;
  }
  return typeof value === 'string' || typeof value === 'number' ? value : undefined;
}
