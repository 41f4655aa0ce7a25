/** The settings as docs/configuration.md and --help show them, both written from their declaration. */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import { COMMANDS, commandHelp, fullHelp, servedCollections } from '../src/commands/commands.js';
import { alignColumns, HELP_WIDTH, helpText, SETTING_LIST, withSettingsTable } from '../src/config/index.js';
import { cli } from './helpers/cli.js';

/** The lines of a help text's settings, every group's: the indented lines after the line that says "Settings". */
function settingsRows(help: string): string[] {
  const lines = help.split('\n');
  const start = lines.findIndex((line) => line.startsWith('Settings'));
  assert.ok(start >= 0, 'settings');
  return lines.slice(start + 1).filter((line) => line.startsWith('  '));
}

/** The headings of a help text's groups of settings, in order. */
const groupsIn = (help: string) =>
  help.split('\n').flatMap((line) => /^(Server|Database|Records): /.exec(line)?.[1] ?? []);

/** The flags a help text's table of settings lists. */
const flagsIn = (help: string) => settingsRows(help).flatMap((line) => /^ {2}--([a-z0-9-]+)/.exec(line)?.[1] ?? []);

const byGroupOrder = (group: string) => ['server', 'database', 'records'].indexOf(group);

describe('the settings in docs/configuration.md and in --help', () => {
  it("keeps docs/configuration.md's table as the declaration writes it (npm run docs:settings)", () => {
    const document = readFileSync(new URL('../docs/configuration.md', import.meta.url), 'utf8');
    assert.equal(document, withSettingsTable(document), 'run npm run docs:settings');
    assert.throws(() => withSettingsTable('# no markers here\n'), /lacks the markers/);
  });

  it('shows flag, variable and meaning in aligned columns, wrapped under the meaning', () => {
    const rows = settingsRows(helpText());
    const first = rows[0] ?? '';
    const envColumn = first.indexOf('PORT');
    const meaningColumn = first.indexOf('TCP port');
    assert.ok(envColumn > 0 && meaningColumn > envColumn, first);
    const entries = rows.filter((line) => line.startsWith('  --'));
    assert.equal(entries.length, SETTING_LIST.length);
    for (const line of entries) {
      const setting = SETTING_LIST.find((s) => line.startsWith(`  --${s.flag} `));
      assert.ok(setting, line);
      assert.equal(line.indexOf(setting.env, 4), envColumn, line);
      assert.match(line.charAt(meaningColumn - 1) + line.charAt(meaningColumn), /^ \S$/, line);
    }
    for (const line of rows.filter((line) => !line.startsWith('  --'))) {
      assert.match(line, new RegExp(`^ {${meaningColumn}}\\S`), 'a wrapped meaning continues under its column');
    }
    assert.ok(rows.every((line) => line.length <= HELP_WIDTH));
    assert.match(helpText(), /\(default: 3000\)/);
    assert.doesNotMatch(helpText(), /`|\]\(#/, 'no Markdown marks on a terminal');
  });

  it('aligns columns by their widest cell and wraps only the last', () => {
    assert.deepEqual(
      alignColumns(
        [
          ['-a', 'one two three four'],
          ['--longer', 'x'],
        ],
        20,
      ),
      ['  -a        one two three four', '  --longer  x'],
      'never narrower than 40 for the last column',
    );
    assert.deepEqual(alignColumns([['--a', 'b', 'word '.repeat(12).trim()]]), [
      `  --a  b  ${'word '.repeat(12).trim()}`,
    ]);
    const words = 'aaaa '.repeat(30).trim();
    const wrapped = alignColumns([['-x', words]], 60);
    assert.deepEqual(
      wrapped.map((line) => line.length),
      [60, 60, 45],
    );
    assert.ok(wrapped.slice(1).every((line) => line.startsWith('      aaaa')));
    assert.equal(wrapped.map((line) => line.slice(6)).join(' '), words);
  });

  it('lists every setting under serve --help by group, under a command only those it reads, and under --help the groups', () => {
    const byGroup = ['server', 'database', 'records'].flatMap((group) =>
      SETTING_LIST.filter((s) => s.group === group).map((s) => s.flag),
    );
    assert.deepEqual(flagsIn(helpText()), byGroup);
    assert.deepEqual(groupsIn(helpText()), ['Server', 'Database', 'Records']);
    assert.deepEqual(flagsIn(fullHelp()), [], 'restock --help names the groups, not every setting');
    assert.match(fullHelp(), /^ {2}server +\d+ settings: /m);
    assert.match(fullHelp(), /restock COMMAND --help lists those a command reads/);
    for (const command of COMMANDS) {
      const help = commandHelp(command);
      const read = SETTING_LIST.filter((s) => command.reads.includes(s.group) || command.alsoReads?.includes(s.key));
      const expected = ['server', 'database', 'records'].flatMap((group) =>
        read.filter((s) => s.group === group).map((s) => s.flag),
      );
      assert.deepEqual(flagsIn(help), expected, command.name);
      const headings = groupsIn(help).map((heading) => heading.toLowerCase());
      assert.deepEqual(
        headings,
        [...new Set(read.map((s) => s.group))].sort((a, b) => byGroupOrder(a) - byGroupOrder(b)),
      );
      assert.ok(!flagsIn(help).includes('port'), `${command.name} --help leaves out the server's settings`);
      assert.ok(help.indexOf('Options:') < help.indexOf('Settings it reads'), 'its own options first');
      for (const option of Object.keys(command.options ?? {})) assert.match(help, new RegExp(`--${option}\\b`));
    }
    const importCommand = COMMANDS.find((c) => c.name === 'import');
    assert.ok(importCommand);
    assert.deepEqual(flagsIn(commandHelp(importCommand)).slice(-6), [
      'body-limit',
      'max-depth',
      'max-record-fields',
      'max-field-name-length',
      'max-record-bytes',
      'max-indexed-value-bytes',
    ]);
  });

  it('lists under backup --help only DATABASE_URL, the one setting a copy of the SQLite file reads', () => {
    const backup = COMMANDS.find((c) => c.name === 'backup');
    assert.ok(backup);
    assert.deepEqual(flagsIn(commandHelp(backup)), ['database-url']);
  });

  it('names in --help the collections the settings declare, or speaks of them in general', async () => {
    const firstLine = (help: string) => help.split('\n', 1)[0];
    assert.equal(firstLine(fullHelp(servedCollections(''))), 'restock: a REST service for users and products');
    assert.equal(servedCollections('schemas/shop'), 'orders, products and users');
    assert.equal(servedCollections('test/fixtures/declared'), 'boxes');
    const shop = await cli('sqlite::memory:', ['--help'], '', { SCHEMAS: 'schemas/shop' });
    assert.equal(firstLine(shop.stdout), 'restock: a REST service for orders, products and users');
    // A folder that is wrong is serving's to report; help still prints.
    const wrong = await cli('sqlite::memory:', ['--help'], '', { SCHEMAS: 'no/such/folder' });
    assert.equal(
      firstLine(wrong.stdout),
      'restock: a REST service for the collections SCHEMAS declares (users and products without it)',
    );
  });
});
