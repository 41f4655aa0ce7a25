/**
 * The table of settings in docs/configuration.md, written from the declaration
 * (./settings.ts) by `npm run docs:settings`; test/settings-docs.test.ts fails when the
 * document's table differs.
 */
import { SETTING_LIST } from './settings.js';

export const TABLE_START = '<!-- settings table: written from src/config/settings.ts by npm run docs:settings -->';
export const TABLE_END = '<!-- end of settings table -->';

/** The table of settings in Markdown, laid out exactly as Biome formats a table. */
export function settingsTable(): string {
  return markdownTable([
    ['Variable', 'Flag', 'Default', 'Meaning'],
    ...SETTING_LIST.map((s) => [
      `\`${s.env}\``,
      `\`--${s.flag}\``,
      s.default === '' ? 'none' : `\`${s.default}\``,
      s.help,
    ]),
  ]);
}

/** `markdown` with the text between the table's markers replaced by {@link settingsTable}. */
export function withSettingsTable(markdown: string): string {
  const start = markdown.indexOf(TABLE_START);
  const end = markdown.indexOf(TABLE_END);
  if (start === -1 || end < start) throw new Error(`the document lacks the markers ${TABLE_START} … ${TABLE_END}`);
  return `${markdown.slice(0, start + TABLE_START.length)}\n\n${settingsTable()}\n\n${markdown.slice(end)}`;
}

/**
 * Rows as a Markdown table: each column padded to its widest cell, counted in code points
 * as Biome counts them (no cell holds a character wider than one column), and a line of
 * dashes under the header.
 */
function markdownTable(rows: readonly (readonly string[])[]): string {
  const width = (cell: string) => [...cell].length;
  const widths = (rows[0] ?? []).map((_, i) => Math.max(3, ...rows.map((row) => width(row[i] ?? ''))));
  const line = (cells: readonly string[]) =>
    `| ${cells.map((cell, i) => cell + ' '.repeat((widths[i] ?? 0) - width(cell))).join(' | ')} |`;
  const [header = [], ...body] = rows;
  return [line(header), line(widths.map((w) => '-'.repeat(w))), ...body.map(line)].join('\n');
}
