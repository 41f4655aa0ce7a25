/** A setting as declared in ./settings.ts, before its names are derived. */
import type { Parser } from './parsers.js';

/**
 * Who reads a setting: every command opens the database; `import` also checks records as
 * the API does; the rest only matter to the server. A command's --help lists the groups it reads.
 */
export type SettingGroup = 'database' | 'records' | 'server';

export interface Setting<T> {
  /** As it would be written in the environment, and read like any given value; '' for none. */
  readonly default: string;
  readonly parse: Parser<T>;
  /** What it does, in Markdown as docs/configuration.md shows it (links relative to docs/); --help shows it without the marks. */
  readonly help: string;
  readonly group: SettingGroup;
  /** A switch: its flag takes no value (`--public-reads`); its variable takes true or false. */
  readonly switch?: true;
  /** The variable's name where it does not follow from the key (names.ts). */
  readonly env?: string;
  /** The flag's name (without `--`) where it does not follow from the key (names.ts). */
  readonly flag?: string;
}
