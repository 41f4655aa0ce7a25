/**
 * A load of writes to products through real servers (test/webhook-crash.test.ts and
 * test/webhook-instances.test.ts): creates and updates, each awaited, and batches that
 * fail at their last operation so that none of them commits. It keeps what was
 * acknowledged and what was refused, so that a test can say what must (and must not) have
 * been sent on.
 */
import assert from 'node:assert/strict';
import { call, postBatch } from './batch.js';
import type { RunningServer } from './server.js';

/** The writes a load made: those acknowledged (record and version), and the marks of those refused whole. */
export interface Written {
  readonly acknowledged: { id: number; version: number }[];
  readonly doomed: string[];
}

export interface Writes extends Written {
  /** Resolves once every client has stopped (`stop()`, or its writes ran out). */
  readonly done: Promise<void>;
  /** Stops writing; resolves once every client has. */
  stop(): Promise<void>;
  /** Resolves once `count` writes were acknowledged, or the writes stopped. */
  ahead(count: number): Promise<void>;
}

/**
 * Writes products from `clients` clients through the servers `targets()` gives (in turn),
 * each write awaited: creates, updates of the records made, and every tenth a batch that
 * creates and updates and then fails, so that none of it commits. A write to a server that
 * is no longer a target (killed meanwhile) may or may not have committed, and is not counted.
 */
export function writeProducts(targets: () => RunningServer[], { clients = 4, from = 0, count = 3000 } = {}): Writes {
  const acknowledged: { id: number; version: number }[] = [];
  const doomed: string[] = [];
  const ids: number[] = [];
  let next = from;
  let stopped = false;
  const waiting = new Set<() => void>();
  const wake = () => {
    for (const resolve of waiting) resolve();
    waiting.clear();
  };
  const one = async (n: number, server: RunningServer) => {
    if (n % 10 === 9 && ids.length > 0) {
      const mark = `doomed-${n}`;
      doomed.push(mark);
      const operations = [
        { method: 'POST', path: '/product/', body: { name: mark } },
        { method: 'PATCH', path: `/product/${ids[n % ids.length]}/`, body: { name: mark } },
        { method: 'PATCH', path: '/product/999999999/', body: { name: mark } },
      ];
      const answer = await postBatch(server.url, operations);
      assert.equal(answer.status, 404, answer.text);
      return;
    }
    const update = n % 3 !== 0 && ids.length > 0;
    const path = update ? `/product/${ids[n % Math.min(ids.length, 8)]}/` : '/product/';
    const answer = await call(server.url, update ? 'PATCH' : 'POST', path, { body: { name: `p${n}`, n } });
    assert.equal(answer.status, update ? 200 : 201, answer.text);
    // The ETag is `"<id>-<version>"`: the version the write made.
    const [id, version] = (/^"(\d+)-(\d+)"$/.exec(answer.headers.get('etag') ?? '') ?? []).slice(1).map(Number);
    assert.ok(id !== undefined && version !== undefined, answer.headers.get('etag') ?? 'no etag');
    if (!update) ids.push(id);
    acknowledged.push({ id, version });
    wake();
  };
  const client = async () => {
    while (!stopped && next < from + count) {
      const n = next++;
      const live = targets();
      const server = live[n % live.length];
      if (!server) return;
      try {
        await one(n, server);
      } catch (error) {
        if (!(error instanceof TypeError) || targets().includes(server)) throw error;
      }
    }
  };
  const done = Promise.all(Array.from({ length: clients }, client)).finally(() => {
    stopped = true;
    wake();
  });
  return {
    acknowledged,
    doomed,
    done: done.then(() => {}),
    async stop() {
      stopped = true;
      await done;
    },
    async ahead(count) {
      while (!stopped && acknowledged.length < count) await new Promise<void>((resolve) => waiting.add(resolve));
    },
  };
}
