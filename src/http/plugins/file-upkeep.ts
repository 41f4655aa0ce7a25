/**
 * The files' upkeep in the server, where some collection has file fields: the reaper
 * (src/records/files/file-reaper.ts) from the app's start to its close, and the sweep at
 * start and every hour (each instance may run both: they are idempotent).
 */
import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import type { Catalog } from '../../core/catalog.js';
import { FileReaper, sweepFiles } from '../../records/files/index.js';
import type { FileStorage } from '../../store/files/file-storage.js';
import type { Store } from '../../store/store.js';
import { registerSweep } from '../routes/sweep.js';

/** How often the sweep runs (after the one at start). */
export const FILE_SWEEP_MS = 3_600_000;

export interface FileUpkeepOptions {
  store: Pick<Store, 'changes' | 'fileUpkeep'>;
  storage: FileStorage;
  /** The collections, some with file fields. */
  catalog: Catalog;
  /** How old a stored file no record names must be before the sweep removes it. */
  graceMs: number;
}

export const fileUpkeep = fp(keepFiles, { name: 'restock-file-upkeep', fastify: '5.x' });

async function keepFiles(app: FastifyInstance, { store, storage, catalog, graceMs }: FileUpkeepOptions) {
  const collections = catalog.collections.filter((collection) => collection.files.length > 0);
  const reaper = new FileReaper({
    changes: store.changes,
    upkeep: store.fileUpkeep,
    storage,
    catalog,
    log: app.log,
  });
  app.addHook('onReady', async () => reaper.start());
  app.addHook('preClose', async () => reaper.stop());
  registerSweep(app, 'unnamed files', FILE_SWEEP_MS, () =>
    sweepFiles({ upkeep: store.fileUpkeep, storage, collections, graceMs }),
  );
}
