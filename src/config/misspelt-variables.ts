/**
 * Variables that are a slip away from a setting's name (`API_KEY`, `DATABSE_URL`, `PROT`)
 * stop the start: read as written, they would be ignored, and the service would run with
 * no keys, on SQLite, or on another port, without a word. The environment also holds every
 * other program's variables (PATH, HOME, NODE_OPTIONS, npm_config_*), so only a name very
 * near one of ours is refused: one edit away (a swap of two neighbours counts as one), two
 * for names of 12 characters or more, only a swap for PORT, HOST and APP_URL (API_URL is
 * another program's), and never a name shorter than 4.
 */
import { ConfigError } from '../core/config-error.js';
import { editDistance, nearest } from './nearest.js';
import { SETTING_LIST } from './settings.js';

const SETTING_NAMES: ReadonlySet<string> = new Set(SETTING_LIST.map((s) => s.env));

/** The shortest name compared: shorter ones (CI, TZ, _) are too near too much to mean anything. */
const SHORTEST = 4;
/**
 * Settings shorter than this (PORT, HOST) are one edit from other programs' names (POST,
 * COST, Marathon's PORT0): for them only a swap of two neighbours counts.
 */
const SHORT = 6;
/** Settings one edit from a name other programs commonly set (APP_URL from API_URL): for them too, only a swap counts. */
const SWAP_ONLY: ReadonlySet<string> = new Set(['APP_URL']);

/** The setting `name` is a slip for, if it is one: compared without regard to case (`port`, `Api_Keys`). */
export function settingMeant(name: string): string | undefined {
  if (name.length < SHORTEST || SETTING_NAMES.has(name)) return undefined;
  const upper = name.toUpperCase();
  for (const setting of SETTING_NAMES) {
    if (setting.length < SHORT || SWAP_ONLY.has(setting)) {
      if (upper === setting || isSwap(upper, setting)) return setting;
      continue;
    }
    const allowed = setting.length >= 12 ? 2 : 1;
    if (Math.abs(setting.length - upper.length) <= allowed && editDistance(upper, setting) <= allowed) return setting;
  }
  return undefined;
}

/** Whether `a` is `b` with two neighbouring letters swapped (`PROT`, `HSOT`). */
function isSwap(a: string, b: string): boolean {
  if (a.length !== b.length) return false;
  const differ = [...a].flatMap((letter, i) => (letter === b[i] ? [] : [i]));
  const [first = 0, second = 0] = differ;
  return differ.length === 2 && second === first + 1 && a[first] === b[second] && a[second] === b[first];
}

/** Refuses the first variable of `env` that is a slip for a setting's name, naming the setting. */
export function refuseMisspeltVariables(env: NodeJS.ProcessEnv): void {
  for (const name of Object.keys(env)) {
    const meant = settingMeant(name);
    if (meant) {
      throw new ConfigError(
        `${name} is not a setting; did you mean ${meant}? (rename it, or unset it if another program reads it)`,
      );
    }
  }
}

/** Refuses any name in a settings file that is no setting: everything in such a file is meant for restock. */
export function refuseUnknownFileVariables(path: string, names: Iterable<string>): void {
  for (const name of names) {
    if (SETTING_NAMES.has(name)) continue;
    const meant = settingMeant(name) ?? nearest(name.toUpperCase(), SETTING_NAMES);
    throw new ConfigError(
      `--env-file ${path}: ${name} is not a setting${meant ? `; did you mean ${meant}?` : ' (restock --help lists them)'}`,
    );
  }
}
