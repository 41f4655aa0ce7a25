import { readFileSync } from 'node:fs';

/**
 * The package's version, read from the package.json two folders up (from src/core/ and
 * dist/core/ alike), so that --version and the OpenAPI document never drift from it.
 */
export const VERSION: string = (
  JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string }
).version;
