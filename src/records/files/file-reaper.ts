/**
 * The reaper: removes a record's old files once the change that left them behind has
 * committed. It follows each file collection's change log (written in the write's own
 * transaction) from a place the store keeps, and moves that place on only after the files
 * are removed: a crash between the two removes them again at the next start, which is no
 * harm, and never forgets one. An update removes the files its previous fields named and
 * its new ones do not; a delete (alone, in a batch, or by a cascade, each logged alike)
 * removes every file the record named, each with its thumbnails.
 *
 * Every instance may run it: they read the same changes and remove the same files (a key
 * already gone is no error), and the place never moves back. It wakes when changes commit
 * (the store's watch) and looks on its own now and then, in case a wake was lost.
 */
import type { Catalog } from '../../core/catalog.js';
import type { Collection } from '../../core/collection.js';
import { fileNamesOf } from '../../core/file-fields.js';
import { isObject } from '../../core/is-object.js';
import type { Change, ChangeLog } from '../../store/change-log-model.js';
import type { FileUpkeep } from '../../store/file-upkeep-model.js';
import type { FileStorage } from '../../store/files/file-storage.js';
import { storedKeysOf } from './stored-names.js';

export interface ReaperLog {
  info(details: object, message: string): void;
  warn(details: object, message: string): void;
}

export interface FileReaperOptions {
  readonly changes: Pick<ChangeLog, 'read' | 'bounds' | 'watch'>;
  readonly upkeep: Pick<FileUpkeep, 'reaped' | 'advance'>;
  readonly storage: Pick<FileStorage, 'remove'>;
  /** The collections: those with file fields are followed. */
  readonly catalog: Pick<Catalog, 'collections' | 'byPlural'>;
  readonly log: ReaperLog;
  /** How long after a failure (the storage or the database unreachable) it tries again. */
  readonly retryMs?: number;
  /** How often it looks without being woken. */
  readonly pollMs?: number;
  /** Changes read at once. */
  readonly pageSize?: number;
}

/**
 * The least time between two passes: SQLite's watch wakes every few milliseconds and
 * PostgreSQL's at every commit, and removing old files a fifth of a second later costs
 * nothing, where reading every log that often would.
 */
const PASS_GAP_MS = 200;

export class FileReaper {
  /** Each collection's place as this process last knew it; read from the store at its first look. */
  private readonly positions = new Map<Collection, number>();
  /** The collections to look at in the next pass. */
  private readonly pending = new Set<Collection>();
  /** The collections with file fields. */
  private readonly followed: readonly Collection[];
  private running: Promise<void> | undefined;
  private stopped = false;
  private lastPass = 0;
  /** After a failure (storage or database unreachable), no pass before this. */
  private retryAt = 0;
  private poll: NodeJS.Timeout | undefined;
  private later: NodeJS.Timeout | undefined;
  private unwatch: (() => void) | undefined;

  constructor(private readonly options: FileReaperOptions) {
    this.followed = options.catalog.collections.filter((collection) => collection.files.length > 0);
  }

  start(): void {
    if (this.unwatch || this.stopped) return;
    this.unwatch = this.options.changes.watch((collection) => this.wake(collection));
    this.poll = setInterval(() => this.wake(), this.options.pollMs ?? 60_000).unref();
    this.wake();
  }

  /** Changes of `collection` (of every collection when absent) may have committed: look. */
  wake(plural?: string): void {
    if (plural === undefined) {
      for (const collection of this.followed) this.pending.add(collection);
    } else {
      const collection = this.options.catalog.byPlural(plural);
      if (collection && collection.files.length > 0) this.pending.add(collection);
    }
    this.schedule();
  }

  /** Stops looking; resolves once the pass under way is over (what it left is done at the next start). */
  async stop(): Promise<void> {
    this.stopped = true;
    this.unwatch?.();
    clearInterval(this.poll);
    clearTimeout(this.later);
    await this.running;
  }

  /** Starts a pass over what is pending: now, or once the gap since the last (or the retry's wait) is over. */
  private schedule(): void {
    if (this.stopped || this.running || this.later || this.pending.size === 0) return;
    const wait = Math.max(this.retryAt, this.lastPass + PASS_GAP_MS) - Date.now();
    if (wait > 0) {
      this.later = setTimeout(() => {
        this.later = undefined;
        this.schedule();
      }, wait).unref();
      return;
    }
    this.lastPass = Date.now();
    const collections = [...this.pending];
    this.pending.clear();
    this.running = this.pass(collections).finally(() => {
      this.running = undefined;
      this.schedule();
    });
  }

  private async pass(collections: readonly Collection[]): Promise<void> {
    for (const [index, collection] of collections.entries()) {
      if (this.stopped) return;
      try {
        await this.reap(collection);
      } catch (error) {
        const plural = collection.plural;
        this.options.log.warn(
          { err: error, collection: plural },
          'file reaper: removing old files failed; trying again',
        );
        for (const left of collections.slice(index)) this.pending.add(left);
        this.retryAt = Date.now() + (this.options.retryMs ?? 5000);
        return;
      }
    }
  }

  /** Removes the old files of every change of `collection` past its place, a page at a time. */
  private async reap(collection: Collection): Promise<void> {
    const { changes, upkeep, storage, log } = this.options;
    const plural = collection.plural;
    const pageSize = this.options.pageSize ?? 1000;
    let position = this.positions.get(collection);
    if (position === undefined) {
      position = await this.firstLook(plural);
      this.positions.set(collection, position);
    }
    for (;;) {
      const page = await changes.read(plural, position, pageSize);
      const last = page.at(-1)?.seq;
      if (last === undefined || this.stopped) return;
      // Another instance may have done this page already.
      const done = await upkeep.reaped(plural);
      if (done >= last) {
        position = done;
        this.positions.set(collection, position);
        continue;
      }
      const first = (page[0] as Change).seq;
      if (first > position + 1) this.trimmed(plural, position + 1, first - 1);
      const keys = page.flatMap((change) => storedKeysOf(plural, staleNames(change, collection)));
      if (keys.length > 0) await storage.remove(keys);
      await upkeep.advance(plural, last);
      if (keys.length > 0) log.info({ collection: plural, files: keys.length / 2, through: last }, 'old files removed');
      position = last;
      this.positions.set(collection, position);
      if (page.length < pageSize) return;
    }
  }

  /** The stored place of `plural`; where the log has forgotten every change after it, the log's end. */
  private async firstLook(plural: string): Promise<number> {
    const { changes, upkeep } = this.options;
    const position = await upkeep.reaped(plural);
    const bounds = await changes.bounds(plural);
    if (bounds.first > bounds.last && bounds.last > position) {
      this.trimmed(plural, position + 1, bounds.last);
      await upkeep.advance(plural, bounds.last);
      return bounds.last;
    }
    return position;
  }

  private trimmed(collection: string, from: number, to: number): void {
    this.options.log.warn(
      { collection, from, to },
      'file reaper: the change log no longer holds these changes; the sweep removes the files they left',
    );
  }
}

/** The files a change left behind: those a delete's record named, or an update's previous fields and not its new ones. */
export function staleNames(change: Change, collection: Pick<Collection, 'files'>): string[] {
  if (change.kind === 'created') return [];
  const now = fileNamesOf(fieldsOf(change.record.data), collection.files);
  if (change.kind === 'deleted') return now;
  if (change.previous === undefined) return [];
  const kept = new Set(now);
  return fileNamesOf(fieldsOf(change.previous), collection.files).filter((name) => !kept.has(name));
}

function fieldsOf(json: string): Record<string, unknown> {
  const value: unknown = JSON.parse(json);
  return isObject(value) ? value : {};
}
