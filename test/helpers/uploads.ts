/**
 * Multipart bodies and small real files for the file suites: a body built by the platform's
 * own FormData (as a browser would send it), and images made by sharp.
 */
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import sharp from 'sharp';

export interface FilePart {
  readonly name: string;
  readonly type?: string;
  readonly bytes: Uint8Array;
}

/** A multipart/form-data body: `record` as its JSON part, each file in a part named after its field. */
export async function multipart(
  files: Record<string, FilePart | readonly FilePart[]>,
  record?: Record<string, unknown>,
  fields: Record<string, string> = {},
): Promise<{ payload: Buffer; headers: Record<string, string> }> {
  const form = new FormData();
  if (record) form.set('record', JSON.stringify(record));
  for (const [name, value] of Object.entries(fields)) form.append(name, value);
  for (const [field, parts] of Object.entries(files)) {
    for (const part of [parts].flat() as FilePart[]) {
      form.append(field, new Blob([part.bytes], { type: part.type ?? 'application/octet-stream' }), part.name);
    }
  }
  const response = new Response(form);
  return {
    payload: Buffer.from(await response.arrayBuffer()),
    headers: { 'content-type': response.headers.get('content-type') as string },
  };
}

/** A PNG of `width` × `height` pixels of one colour. */
export function png(width = 8, height = 8, colour = { r: 200, g: 30, b: 30 }): Promise<Buffer> {
  return sharp({ create: { width, height, channels: 3, background: colour } })
    .png()
    .toBuffer();
}

/** A JPEG of `width` × `height` pixels of one colour. */
export function jpeg(width = 8, height = 8): Promise<Buffer> {
  return sharp({ create: { width, height, channels: 3, background: { r: 20, g: 90, b: 200 } } })
    .jpeg()
    .toBuffer();
}

/** A folder of its own for a suite's files, removed on exit. */
export function filesFolder(): string {
  const dir = mkdtempSync(join(tmpdir(), 'restock-files-'));
  process.once('exit', () => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

/** Every file under `dir` (a files folder), staged uploads included, as paths relative to it. */
export function storedFiles(dir: string): string[] {
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile())
    .map((entry) => join(entry.parentPath, entry.name).slice(dir.length + 1))
    .sort();
}
