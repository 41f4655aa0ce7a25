/**
 * The shop (./shop-accounts.ts) with files: an app on a database of a store kind, its file
 * storage in a temporary folder, everyone signed in; files uploaded as clients upload them
 * (multipart/form-data), or, for what no upload would take (HTML in a field of pictures, a
 * decompression bomb), given to a record as an upload leaves them (the bytes stored, the
 * record naming them) through the store.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before } from 'node:test';
import type { FastifyInstance } from 'fastify';
import { type Config, defaultConfig } from '../../src/config/index.js';
import type { FileMeta } from '../../src/core/file-fields.js';
import { loadCatalog } from '../../src/core/load-catalog.js';
import { buildApp } from '../../src/http/app.js';
import type { FileStorage } from '../../src/store/files/file-storage.js';
import { folderStorage } from '../../src/store/files/folder-storage.js';
import { openStore, storeOptionsOf } from '../../src/store/open-store.js';
import type { Store } from '../../src/store/store.js';
import { storeFile } from './files.js';
import { type ContractRecorder, checkAgainstDocument } from './openapi-validator.js';
import { headersOf, openShop, type Sender, type Shop, shopSettings } from './shop-accounts.js';
import type { TestDatabase, TestStoreKind } from './stores.js';
import { type FilePart, multipart } from './uploads.js';

export interface FileShop {
  app: FastifyInstance;
  store: Store;
  /** The folder the app keeps files in, opened apart: what a test puts there the app serves. */
  storage: FileStorage;
  shop: Shop;
  contract?: ContractRecorder;
  /** Gives record `id` of `plural` the file `bytes` in `field` (beside those it holds, for a field of several). */
  attach(
    plural: 'products' | 'orders',
    id: number,
    field: string,
    file: { bytes: Buffer; type: string; original: string },
  ): Promise<FileMeta>;
  /** Sends `files` (and `record`'s fields) as `sender`, multipart; answers the record written, or throws. */
  upload(
    sender: Sender,
    request: { method: 'POST' | 'PUT'; url: string },
    files: Record<string, FilePart | FilePart[]>,
    record?: Record<string, unknown>,
  ): Promise<Record<string, unknown> & { id: number }>;
  /** Empties `field` of record `id` of `plural` (its files stay stored). */
  clear(plural: 'products' | 'orders', id: number, field: string): Promise<void>;
}

/** A shop with files on a fresh database of `kind` for the suite, every exchange checked against the document. */
export function useFileShop(kind: TestStoreKind, overrides: Partial<Config> = {}): FileShop {
  const context = {} as FileShop;
  let db: TestDatabase;
  let dir: string;
  before(async () => {
    db = await kind.create();
    dir = mkdtempSync(join(tmpdir(), 'restock-files-'));
    const config = defaultConfig({
      maxEventLoopDelay: 0,
      ...shopSettings({ filesDir: dir, ...overrides }),
      databaseUrl: db.url,
    });
    const catalog = loadCatalog(config);
    context.store = await openStore(db.url, catalog, storeOptionsOf(config));
    context.app = await buildApp({ config, store: context.store, logStream: false });
    context.contract = checkAgainstDocument(context.app);
    await context.app.ready();
    await context.contract.load();
    context.storage = folderStorage(dir);
    context.shop = await openShop(context.app);
    const collectionOf = (plural: string) => {
      const collection = catalog.byPlural(plural);
      if (!collection) throw new Error(`no ${plural}`);
      return collection;
    };
    context.upload = async (sender, { method, url }, files, record) => {
      const { payload, headers } = await multipart(files, record);
      const response = await context.app.inject({
        method,
        url,
        payload,
        headers: { ...headers, ...headersOf(context.shop, sender) },
      });
      if (response.statusCode >= 300) throw new Error(`${method} ${url}: ${response.statusCode} ${response.body}`);
      return response.json();
    };
    context.clear = async (plural, id, field) => {
      await context.store.collection(collectionOf(plural)).merge(id, { [field]: null });
    };
    context.attach = async (plural, id, field, file) => {
      const collection = collectionOf(plural);
      const meta = await storeFile(context.storage, plural, file);
      const records = context.store.collection(collection);
      const current = JSON.parse((await records.get(id))?.data ?? '{}') as Record<string, unknown>;
      const several = (collection.files.find((f) => f.name === field)?.maxFiles ?? 1) > 1;
      const held = Array.isArray(current[field]) ? (current[field] as FileMeta[]) : [];
      await records.merge(id, { [field]: several ? [...held, meta] : meta });
      return meta;
    };
  });
  after(async () => {
    await context.app?.close();
    await context.store?.close();
    await db?.drop();
    rmSync(dir, { recursive: true, force: true });
  });
  return context;
}
