/**
 * The sources of src/ and the relative imports each makes, read with TypeScript's own
 * pre-parser: what the tests of the code's structure (floors, the home of accounts) check.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join, posix } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';

const SRC = fileURLToPath(new URL('../../src/', import.meta.url));

/** Every relative module a source imports (`import`, `export … from`, `import()`), as written. */
export function importsOf(source: string): string[] {
  return ts
    .preProcessFile(source, true, true)
    .importedFiles.map((file) => file.fileName)
    .filter((name) => name.startsWith('.'));
}

/** The file under src/ that `specifier`, imported by the file at `path`, names (its .ts source). */
export function importedPath(path: string, specifier: string): string {
  return posix.normalize(posix.join(posix.dirname(path), specifier)).replace(/\.js$/, '.ts');
}

/** Every source file under src/, by its path there (with `/` on every system). */
export function sources(): Map<string, string> {
  const names = readdirSync(SRC, { recursive: true, encoding: 'utf8' }).filter((name) => name.endsWith('.ts'));
  return new Map(names.map((name) => [name.split('\\').join('/'), readFileSync(join(SRC, name), 'utf8')]));
}
