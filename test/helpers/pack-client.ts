/**
 * `restock-client` packed as it would be published: built from packages/client in a copy
 * (never into the clone's own dist/, which other test files may be reading) and packed there.
 */
import { execFile } from 'node:child_process';
import { cpSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const run = promisify(execFile);

/** Builds and packs the client into `work`; answers the tarball's path. */
export async function packClient(work: string): Promise<string> {
  const copy = join(work, 'client-package');
  cpSync(join(ROOT, 'packages/client'), copy, { recursive: true, filter: (path) => !path.includes('/dist') });
  await run(process.execPath, [join(ROOT, 'node_modules/typescript/bin/tsc'), '-p', copy]);
  const path = `${join(process.execPath, '..')}:${process.env.PATH}`;
  const { stdout } = await run('npm', ['pack', '--json', '--pack-destination', work], {
    cwd: copy,
    env: { ...process.env, PATH: path },
  });
  const [{ filename }] = JSON.parse(stdout.slice(stdout.indexOf('['))) as [{ filename: string }];
  return join(work, filename);
}
