/** The production log destination: every line whole and in order, written by the end of the turn. */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { closeSync, mkdtempSync, openSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { batchedDestination } from '../src/http/plugins/access-log/log-destination.js';

const ROOT = fileURLToPath(new URL('..', import.meta.url));

describe('the batched log destination', () => {
  it('writes every line whole and in order once the turn of the event loop ends', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'restock-log-'));
    const path = join(dir, 'log');
    const fd = openSync(path, 'a');
    try {
      const destination = batchedDestination(fd);
      const lines = Array.from({ length: 500 }, (_, i) => `{"n":${i},"text":"${'é'.repeat(i % 40)}"}\n`);
      lines.splice(250, 0, `{"long":"${'x'.repeat(10_000)}"}\n`);
      for (const line of lines) destination.write(line);
      assert.equal(readFileSync(path, 'utf8'), '', 'nothing is written before the turn ends');
      await new Promise((resolve) => setImmediate(resolve));
      assert.equal(readFileSync(path, 'utf8'), lines.join(''));
    } finally {
      closeSync(fd);
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('writes what is pending when the process exits', async () => {
    const script =
      "import { batchedDestination } from './src/http/plugins/access-log/log-destination.ts';" +
      "const log = batchedDestination(1); log.write('first\\n'); log.write('second\\n'); process.exit(3);";
    const child = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], {
      cwd: ROOT,
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    let out = '';
    child.stdout.on('data', (chunk: Buffer) => {
      out += chunk.toString();
    });
    const [code] = await once(child, 'exit');
    assert.equal(code, 3);
    assert.equal(out, 'first\nsecond\n');
  });
});
