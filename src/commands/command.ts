/**
 * What every `restock` command shares: its declaration, the streams it talks to, and
 * opening the collection it works on.
 */
import type { Readable, Writable } from 'node:stream';
import { type Config, ConfigError, type SettingGroup } from '../config/index.js';
import type { Collection, Reference } from '../core/collection.js';
import { loadCatalog } from '../core/load-catalog.js';
import { openStore, storeOptionsOf } from '../store/open-store.js';
import type { Records } from '../store/store.js';

/** The streams a command reads and writes: the process's own, or a test's. */
export interface CommandIo {
  stdin: Readable;
  stdout: Writable & { isTTY?: boolean };
  stderr: Writable & { isTTY?: boolean };
}

export interface CommandContext {
  config: Config;
  /** The command's own options (not the settings, which are in `config`). */
  options: Record<string, string | boolean | undefined>;
  positionals: string[];
  io: CommandIo;
}

/** One option of a command, as parseArgs takes it plus what --help says of it. */
export interface OptionSpec {
  type: 'string' | 'boolean';
  short?: string;
  help: string;
  placeholder?: string;
}

export interface Command {
  name: string;
  /** The arguments after the name, as --help shows them. */
  usage: string;
  summary: string;
  options?: Readonly<Record<string, OptionSpec>>;
  positionals?: boolean;
  /** The settings it reads, which its --help lists after its own options (it takes them all). */
  reads: readonly SettingGroup[];
  /** Settings of other groups it reads too, by key: one or two of the server's, not the whole group. */
  alsoReads?: readonly (keyof Config)[];
  /** Runs the command and resolves with the process's exit code. */
  run(context: CommandContext): Promise<number>;
}

/**
 * Opens the store `config` names and the collection `--collection` names. `enforceUnique`
 * sets up the unique fields' indexes, as serving does (a store whose records already share
 * a value then refuses to open).
 */
export async function openCollection(
  config: Config,
  options: CommandContext['options'],
  { enforceUnique }: { enforceUnique: boolean },
): Promise<{
  collection: Collection;
  records: Records;
  /** The paths of its indexed and unique fields, whose values MAX_INDEXED_VALUE_BYTES caps. */
  indexedPaths: readonly (readonly string[])[];
  /** The references this collection's records hold, each with the records of the collection it names. */
  references: { reference: Reference; target: Records }[];
  close(): Promise<void>;
}> {
  const name = options.collection;
  const catalog = loadCatalog(config);
  if (typeof name !== 'string' || !catalog.has(name)) {
    throw new ConfigError(`--collection must be one of ${catalog.names.join(', ')}${name ? `, got "${name}"` : ''}`);
  }
  const store = await openStore(config.databaseUrl, catalog, storeOptionsOf(config, { enforceUnique }));
  const collection = catalog.get(name);
  return {
    collection,
    records: store.collection(collection),
    indexedPaths: [...collection.indexes, ...collection.unique].map((field) => field.path),
    references: collection.references.map((reference) => ({ reference, target: store.collection(reference.target) })),
    close: () => store.close(),
  };
}
