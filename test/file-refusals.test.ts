/**
 * Every refused upload leaves nothing, on every store: no record written or changed, no byte
 * in storage, nothing staged. A file one byte over its limit, a PNG named .jpg, HTML sent as
 * a PNG, a decompression bomb, a part for no file field, a record that breaks its schema,
 * JSON naming a file never uploaded, and a request cut off halfway through its upload.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { before, describe, it } from 'node:test';
import { crc32, deflateSync } from 'node:zlib';
import { body, problem, useApp } from './helpers/app.js';
import { STORE_KINDS } from './helpers/stores.js';
import { type FilePart, filesFolder, multipart, png, storedFiles } from './helpers/uploads.js';

const NOTES = {
  type: 'object',
  required: ['title'],
  additionalProperties: false,
  properties: {
    title: { type: 'string', minLength: 1 },
    file: { 'x-file': { maxBytes: 2000, types: ['image/png', 'image/jpeg', 'text/plain'] } },
  },
};

function schemas(): string {
  const dir = mkdtempSync(join(tmpdir(), 'restock-file-refusals-'));
  writeFileSync(join(dir, 'notes.schema.json'), JSON.stringify(NOTES));
  writeFileSync(join(dir, 'tags.schema.json'), JSON.stringify({ type: 'object' }));
  return dir;
}

/** A PNG whose header claims `width` × `height` pixels over a few hundred bytes: a decompression bomb. */
function pngBomb(width: number, height: number): Buffer {
  const chunk = (type: string, data: Buffer) => {
    const typed = Buffer.concat([Buffer.from(type, 'latin1'), data]);
    const framed = Buffer.alloc(typed.length + 8);
    framed.writeUInt32BE(data.length, 0);
    typed.copy(framed, 4);
    framed.writeUInt32BE(crc32(typed), typed.length + 4);
    return framed;
  };
  const header = Buffer.alloc(13);
  header.writeUInt32BE(width, 0);
  header.writeUInt32BE(height, 4);
  header[8] = 8; // bit depth; colour type 0 (grey), deflate, no filter, no interlace
  const signature = Buffer.from([137, 80, 78, 71, 13, 10, 26, 10]);
  return Buffer.concat([
    signature,
    chunk('IHDR', header),
    chunk('IDAT', deflateSync(Buffer.alloc(4096))),
    chunk('IEND', Buffer.alloc(0)),
  ]);
}

for (const kind of STORE_KINDS) {
  describe(`refused uploads leave nothing (${kind.name})`, () => {
    const dir = filesFolder();
    const ctx = useApp(kind, { schemas: schemas(), filesDir: dir });
    let kept: { id: number; file: { name: string } };
    let exact: { id: number; file: { name: string } };
    before(async () => {
      const form = await multipart(
        { file: { name: 'kept.png', type: 'image/png', bytes: await png() } },
        { title: 'k' },
      );
      kept = body(
        await ctx.app.inject({ method: 'POST', url: '/note/', payload: form.payload, headers: form.headers }),
      );
    });

    const send = async (files: Record<string, FilePart>, record?: Record<string, unknown>, url = '/note/') => {
      const form = await multipart(files, record);
      const method = url === '/note/' || url === '/tag/' ? 'POST' : 'PUT';
      return ctx.app.inject({ method, url, payload: form.payload, headers: form.headers });
    };
    const nothingKept = async () => {
      assert.deepEqual(storedFiles(dir), [`notes/${exact.file.name}`, `notes/${kept.file.name}`].sort());
      assert.equal(body<unknown[]>(await ctx.app.inject({ url: '/notes/' })).length, 2);
      const note = body(await ctx.app.inject({ url: `/note/${kept.id}/` }));
      assert.deepEqual([note.title, note.file], ['k', kept.file]);
    };
    const text = (bytes: number): FilePart => ({ name: 'a.txt', type: 'text/plain', bytes: Buffer.alloc(bytes, 'a') });

    it('takes a file of exactly its limit, and refuses one byte more', async () => {
      const taken = await send({ file: text(2000) }, { title: 'exact' });
      assert.equal(taken.statusCode, 201, taken.body);
      exact = body(taken);
      problem(await send({ file: text(2001) }, { title: 'over' }), 413, 'file-too-large');
      problem(await send({ file: text(2001) }, { title: 'over' }, `/note/${kept.id}/`), 413, 'file-too-large');
    });

    it('refuses a file whose content its name or declared type contradicts', async () => {
      const named = await send({ file: { name: 'photo.jpg', type: 'image/jpeg', bytes: await png() } }, { title: 'x' });
      assert.match(problem(named, 415, 'file-type-refused').detail, /image\/png/);
      const html = Buffer.from('<!doctype html><script>alert(document.cookie)</script>');
      problem(await send({ file: { name: 'x.png', type: 'image/png', bytes: html } }, { title: 'x' }), 415);
      problem(await send({ file: { name: 'x.html', type: 'text/html', bytes: html } }, { title: 'x' }), 415);
    });

    it('refuses a decompression bomb before anything decodes it', async () => {
      const bomb = { name: 'bomb.png', type: 'image/png', bytes: pngBomb(100_000, 100_000) };
      assert.ok(bomb.bytes.length < 2000);
      problem(await send({ file: bomb }, { title: 'boom' }), 422, 'image-too-large');
    });

    it('refuses a part for no file field, a record that breaks its schema, and JSON naming a file', async () => {
      problem(await send({ other: text(10) }, { title: 'x' }), 422, 'too-many-files');
      problem(await send({ file: text(10) }, { title: '' }), 422, 'schema-violation');
      problem(await send({ file: text(10) }, {}, `/note/${kept.id}/`.replace(String(kept.id), '999')), 404);
      const forged = {
        title: 'x',
        file: { name: 'f_0123456789.png', type: 'image/png', size: 1, sha256: 'a'.repeat(64) },
      };
      problem(await ctx.app.inject({ method: 'POST', url: '/note/', payload: forged }), 422, 'file-not-uploaded');
      problem(await send({ tags: text(10) }, { title: 'x' }, '/tag/'), 415, 'unsupported-media-type');
    });

    it('keeps nothing of an upload cut off halfway', async () => {
      const address = await ctx.app.listen({ host: '127.0.0.1', port: 0 });
      const form = await multipart({ file: text(1900) }, { title: 'cut' });
      const socket = connect(Number(new URL(address).port), '127.0.0.1');
      await new Promise((resolve) => socket.once('connect', resolve));
      const head = `POST /note/ HTTP/1.1\r\nhost: x\r\ncontent-type: ${form.headers['content-type']}\r\ncontent-length: ${form.payload.length}\r\n\r\n`;
      socket.write(head);
      socket.write(form.payload.subarray(0, form.payload.length - 1000));
      await until(() => storedFiles(dir).some((path) => path.startsWith('.staging/')));
      socket.destroy();
      await until(() => !storedFiles(dir).some((path) => path.startsWith('.staging/')));
    });

    it('keeps nothing of any refusal above: only the two notes written, and their files', nothingKept);
  });
}

/** Resolves once `holds()` is true, checking at most 400 times (each after the pending I/O). */
async function until(holds: () => boolean): Promise<void> {
  for (let tries = 0; tries < 400; tries += 1) {
    if (holds()) return;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  assert.fail('the condition never held');
}
