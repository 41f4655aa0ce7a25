/**
 * A server killed (SIGKILL) while an upload streams in, among others that complete: the
 * half-sent upload changes no record, and the next start's sweep (grace 0) leaves in the
 * storage exactly the files records name, with no staged upload left over. Real processes,
 * real HTTP, both stores.
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { existsSync, readdirSync, statSync } from 'node:fs';
import { request } from 'node:http';
import { describe, it } from 'node:test';
import { filesIn } from '../src/core/file-fields.js';
import { folderStorage } from '../src/store/files/folder-storage.js';
import { photoSchemas } from './helpers/file-fixtures.js';
import { startServer } from './helpers/server.js';
import { STORE_KINDS } from './helpers/stores.js';
import { filesFolder, multipart } from './helpers/uploads.js';

/** Polls `condition` every 20 ms, at most 500 times. */
async function until(what: string, condition: () => Promise<boolean> | boolean): Promise<void> {
  for (let attempt = 0; !(await condition()); attempt++) {
    if (attempt >= 500) throw new Error(`never: ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

for (const kind of STORE_KINDS) {
  describe(`a server killed mid-upload (${kind.name})`, () => {
    it('changes no record, and the sweep after the restart leaves only named files', async () => {
      const db = await kind.create();
      const filesDir = filesFolder();
      const storage = folderStorage(filesDir);
      const env = { DATABASE_URL: db.url, SCHEMAS: photoSchemas(), FILES_DIR: filesDir, RATE_LIMIT_MAX: '0' };
      const server = await startServer(env);
      let again: Awaited<ReturnType<typeof startServer>> | undefined;
      try {
        const post = async (n: number) => {
          const body = await multipart(
            { scans: { name: `scan${n}.bin`, bytes: randomBytes(50_000) } },
            { albumId: null },
          );
          const response = await fetch(`${server.url}/photo/`, {
            method: 'POST',
            headers: body.headers,
            body: body.payload,
          });
          assert.equal(response.status, 201, await response.text());
        };
        await Promise.all([1, 2, 3].map(post));
        // Under load: uploads keep completing while one is sent by half and never finished.
        let loading = true;
        const load = (async () => {
          for (let n = 4; loading; n++) await post(n).catch(() => {});
        })();
        const half = await multipart({ scans: { name: 'half.bin', bytes: randomBytes(400_000) } }, { albumId: null });
        const socket = request(`${server.url}/photo/`, {
          method: 'POST',
          headers: { ...half.headers, 'content-length': String(half.payload.length) },
        });
        socket.on('error', () => {});
        socket.write(half.payload.subarray(0, 200_000));
        const staged = () =>
          existsSync(storage.stagingDir) &&
          readdirSync(storage.stagingDir).some((name) => statSync(`${storage.stagingDir}/${name}`).size > 0);
        await until('the half-sent upload is staged', staged);
        server.process.kill('SIGKILL');
        await until('the server is gone', () => server.process.exitCode !== null || server.process.signalCode !== null);
        loading = false;
        await load;
        socket.destroy();

        const listed = async (url: string) => {
          const response = await fetch(`${url}/photos/?limit=1000`);
          assert.equal(response.status, 200);
          return (await response.json()) as { id: number; scans?: unknown }[];
        };
        again = await startServer({ ...env, FILES_SWEEP_GRACE_SECONDS: '0' });
        const records = await listed(again.url);
        assert.ok(records.length >= 3);
        const names = new Set(records.flatMap((record) => filesIn(record.scans).map((file) => file.name)));
        assert.equal(names.size, records.length, 'one scan per record; none from the half-sent upload');
        const stored = async () => {
          const keys: string[] = [];
          for await (const object of storage.list('photos/')) keys.push(object.key);
          return keys.sort();
        };
        const expected = [...names].map((name) => `photos/${name}`).sort();
        // The sweep runs as the new server starts: what it removes is gone soon after.
        await until('only named files are stored', async () => {
          const left = existsSync(storage.stagingDir) ? readdirSync(storage.stagingDir) : [];
          return left.length === 0 && JSON.stringify(await stored()) === JSON.stringify(expected);
        });
      } finally {
        await again?.stop();
        await server.stop('SIGKILL');
        await db.drop();
      }
    });
  });
}
