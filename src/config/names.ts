/**
 * A setting's names follow from its key in the declaration (./settings.ts), so that a new
 * setting cannot be given a variable and a flag that disagree with each other.
 */
import type { Setting } from './setting.js';

/** A setting with its key and the names it is given under. */
export interface NamedSetting<K extends string = string> extends Setting<unknown> {
  readonly key: K;
  readonly env: string;
  /** Without its `--`. */
  readonly flag: string;
}

/** `databaseStatementTimeout` → `DATABASE_STATEMENT_TIMEOUT`. */
export function envNameOf(key: string): string {
  return key.replace(/[A-Z]/g, (letter) => `_${letter}`).toUpperCase();
}

/** `databaseStatementTimeout` → `database-statement-timeout` (written `--database-statement-timeout`). */
export function flagNameOf(key: string): string {
  return key.replace(/[A-Z]/g, (letter) => `-${letter.toLowerCase()}`);
}

/** The settings of a declaration, in its order, each named by its key unless it names itself. */
export function nameSettings<K extends string>(declaration: Readonly<Record<K, Setting<unknown>>>): NamedSetting<K>[] {
  return (Object.entries(declaration) as [K, Setting<unknown>][]).map(([key, setting]) => ({
    ...setting,
    key,
    env: setting.env ?? envNameOf(key),
    flag: setting.flag ?? flagNameOf(key),
  }));
}
