/**
 * An upload's type, read from its first bytes and held to what its name and part claim: a
 * PNG named .jpg or HTML sent as a PNG is refused, while the registries' differing names
 * for one kind (`.jpeg` and file-type's `jpg`, `audio/mp4` and `audio/x-m4a`) are not.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { FileField } from '../src/core/file-fields.js';
import { typeOfContent } from '../src/records/files/file-types.js';
import { Refusal } from '../src/records/refusal.js';
import { jpeg, png } from './helpers/uploads.js';

const ANY: FileField = { name: 'file', maxBytes: 1e6, types: [], maxFiles: 1, thumbs: [] };
/** The first bytes of an M4A file: an MP4 box naming the M4A brand. */
const M4A = Buffer.concat([
  Buffer.from([0, 0, 0, 0x20]),
  Buffer.from('ftypM4A \0\0\0\0M4A mp42isom\0\0\0\0', 'latin1'),
]);

const typeOf = async (head: Buffer, filename: string, declaredType = '', field = ANY) =>
  (await typeOfContent(field, head, { filename, declaredType })).mime;
const refused = (head: Buffer, filename: string, declaredType = '', field = ANY) =>
  assert.rejects(typeOfContent(field, head, { filename, declaredType }), (error: unknown) => {
    assert.ok(error instanceof Refusal);
    assert.equal(error.kind, 'file-type-refused');
    return true;
  });

describe('an upload’s type', () => {
  it('is its content’s, whatever name of that kind the client gives it', async () => {
    assert.equal(await typeOf(await png(), 'A.PNG', 'image/png'), 'image/png');
    assert.equal(await typeOf(await jpeg(), 'photo.jpeg', 'image/jpg'), 'image/jpeg');
    assert.equal(await typeOf(await png(), 'photo.unknown-extension'), 'image/png');
    assert.equal(await typeOf(await png(), 'no-extension', 'application/octet-stream'), 'image/png');
    assert.equal(await typeOf(M4A, 'song.m4a', 'audio/mp4'), 'audio/x-m4a');
  });

  it('is text as the client names it, when no signature matches and the bytes are UTF-8', async () => {
    assert.equal(await typeOf(Buffer.from('a,b\n1,2\n'), 'rows.csv'), 'text/csv');
    assert.equal(await typeOf(Buffer.from('plain words'), 'notes'), 'text/plain');
    assert.equal(await typeOf(Buffer.from('<svg xmlns="http://www.w3.org/2000/svg"/>'), 'x.svg'), 'image/svg+xml');
    assert.equal(await typeOf(Buffer.from([0xff, 0, 1, 2, 3]), 'blob.bin'), 'application/octet-stream');
  });

  it('refuses content its name or part contradicts', async () => {
    await refused(await png(), 'photo.jpg');
    await refused(await png(), 'photo.png', 'image/jpeg');
    await refused(Buffer.from('<!doctype html><p>hi'), 'x.png', 'image/png');
    await refused(Buffer.from('<!doctype html><p>hi'), 'x.png');
    await refused(Buffer.from([0xff, 0, 1, 2, 3]), 'x.txt');
  });

  it('refuses a type its field does not take, by the content, not the claim', async () => {
    const pictures = { ...ANY, types: ['image/*'] };
    assert.equal(await typeOf(await jpeg(), 'a.jpg', '', pictures), 'image/jpeg');
    await refused(Buffer.from('just text'), 'a.txt', '', pictures);
    await refused(M4A, 'song.m4a', '', { ...ANY, types: ['image/png'] });
  });
});
