/** The settings as `--help` shows them: aligned columns, written from the declaration. */
import type { SettingGroup } from './setting.js';
import { SETTING_LIST } from './settings.js';

/** The width help text is wrapped to: the last column's words move to the next line beyond it. */
export const HELP_WIDTH = 120;
/** The narrowest the last column gets, however wide the others are. */
const MIN_LAST_COLUMN = 40;

/**
 * Lines of `rows` with every column but the last padded to its widest cell, two spaces
 * between columns; the last column wraps at word breaks, its next lines starting under it.
 */
export function alignColumns(rows: readonly (readonly string[])[], width = HELP_WIDTH): string[] {
  return alignedRows(rows, width).flat();
}

/** {@link alignColumns}, keeping each row's lines apart (a wrapped row has several). */
function alignedRows(rows: readonly (readonly string[])[], width = HELP_WIDTH): string[][] {
  const columns = Math.max(...rows.map((row) => row.length));
  const widths = Array.from({ length: columns - 1 }, (_, i) => Math.max(...rows.map((row) => row[i]?.length ?? 0)));
  const indent = 2 + widths.reduce((sum, w) => sum + w + 2, 0);
  return rows.map((row) => {
    const lead = row.slice(0, -1).map((cell, i) => cell.padEnd((widths[i] ?? 0) + 2));
    const [first = '', ...more] = wrap(row.at(-1) ?? '', Math.max(MIN_LAST_COLUMN, width - indent));
    return [`  ${lead.join('')}${first}`.trimEnd(), ...more.map((line) => `${' '.repeat(indent)}${line}`)];
  });
}

/** `text` in lines of at most `width` characters, broken between words (a longer word stands alone). */
function wrap(text: string, width: number): string[] {
  const lines: string[] = [];
  let line = '';
  for (const word of text.split(' ')) {
    if (line !== '' && line.length + 1 + word.length > width) {
      lines.push(line);
      line = word;
    } else {
      line = line === '' ? word : `${line} ${word}`;
    }
  }
  return [...lines, line];
}

/** Markdown as a terminal shows it: `code` without its backticks, a [link](#anchor) as its text. */
export function plainText(markdown: string): string {
  return markdown.replace(/\[([^\]]*)\]\([^)]*\)/g, '$1').replace(/`([^`]*)`/g, '$1');
}

/** The groups of settings in the order help shows them, each with what its settings are about. */
export const SETTING_GROUPS: readonly { group: SettingGroup; about: string }[] = [
  { group: 'server', about: 'how it listens, answers, logs and guards requests' },
  { group: 'database', about: 'where the records are kept (DATABASE_URL), and the connection to it' },
  { group: 'records', about: 'what a record may hold, checked alike by the API and by import' },
];

/**
 * The settings of `groups` (all by default), and those named in `also`, as help lines under a
 * heading per group: flag, variable, meaning and default, in columns aligned across groups.
 */
export function settingsHelp(groups?: readonly SettingGroup[], also: readonly string[] = []): string[] {
  const shown = SETTING_LIST.filter((s) => groups === undefined || groups.includes(s.group) || also.includes(s.key));
  const rows = shown.map((s) => [
    `--${s.flag}`,
    s.env,
    `${plainText(s.help)} (default: ${s.default === '' ? 'none' : s.default})`,
  ]);
  const lines = alignedRows(rows);
  return SETTING_GROUPS.flatMap(({ group, about }) => {
    const members = shown.flatMap((s, i) => (s.group === group ? [lines[i] ?? []] : []));
    if (members.length === 0) return [];
    return ['', `${group.charAt(0).toUpperCase()}${group.slice(1)}: ${about}`, ...members.flat()];
  }).slice(1);
}

/** What every command takes besides the settings: where more of them come from. */
export const ENV_FILE_HELP: readonly [string, string] = [
  '    --env-file FILE',
  'read settings from FILE (NAME=value lines); the environment and flags win over it (repeatable)',
];

/** Says what restock serves when --help cannot name it: the collections of SCHEMAS, or the two without it. */
export const SERVED_BY_DEFAULT = 'the collections SCHEMAS declares (users and products without it)';

/**
 * The text `restock serve --help` prints: every setting, with its variable and default.
 * `served` names the collections the settings declare.
 */
export function helpText(served = SERVED_BY_DEFAULT): string {
  return [
    `restock: a REST service for ${served}`,
    '',
    'Usage: restock [serve] [options]',
    '',
    'Options:',
    ...alignColumns([ENV_FILE_HELP, ['-h, --help', 'print this text']]),
    '',
    'Settings, each a flag or an environment variable (the flag wins, then the variable, then --env-file):',
    '',
    ...settingsHelp(),
    '',
  ].join('\n');
}
