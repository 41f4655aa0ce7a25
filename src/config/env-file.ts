/**
 * `--env-file FILE`: settings kept in a file of `NAME=value` lines, as a `.env` file holds
 * them. Node.js's own parser reads it (util.parseEnv, the one behind `node --env-file` and
 * process.loadEnvFile), so the file means here what it means to Node.js and to the tools
 * that write such files. It is read into the variables the settings are looked up in, not
 * into process.env, so a command run in a test's process reads it the same way. Every name
 * in such a file is meant for restock, so a name that is no setting is refused.
 */
import { readFileSync } from 'node:fs';
import { parseEnv } from 'node:util';
import { ConfigError } from '../core/config-error.js';
import { refuseUnknownFileVariables } from './misspelt-variables.js';

/** Why a file could not be read, in words, by its error code. */
const UNREADABLE: Record<string, string> = {
  ENOENT: 'no such file',
  EISDIR: 'it is a folder',
  EACCES: 'permission denied',
  ENOTDIR: 'a part of its path is not a folder',
};

/**
 * The variables `env` holds with those of the files at `paths` beneath them: a variable
 * set (and not empty) in the environment wins over every file, and a later file wins over
 * an earlier one, as with `node --env-file`. The environment is the more specific of the
 * two: a file holds a deployment's settings, `PORT=4000 restock serve --env-file .env`
 * changes one of them for one run.
 */
export function withEnvFiles(paths: readonly string[], env: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  if (paths.length === 0) return env;
  const variables: NodeJS.ProcessEnv = {};
  for (const path of paths) {
    const fromFile = parseEnv(readEnvFile(path));
    refuseUnknownFileVariables(path, Object.keys(fromFile));
    Object.assign(variables, fromFile);
  }
  for (const [name, value] of Object.entries(env)) {
    // An empty variable counts as unset for every setting (./load.ts): it must not hide the file's value.
    if (value !== undefined && value !== '') variables[name] = value;
  }
  return variables;
}

function readEnvFile(path: string): string {
  if (path === '') throw new ConfigError('--env-file needs a FILE');
  try {
    return readFileSync(path, 'utf8');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code ?? '';
    throw new ConfigError(`--env-file: cannot read ${path}: ${UNREADABLE[code] ?? (code || (error as Error).message)}`);
  }
}
