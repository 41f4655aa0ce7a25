/**
 * The `restock` command line: the table of commands (`COMMANDS`: `migrate`, `check`,
 * `backup`, `import`, `export`, `rotate-keys`, `types`), each with its options and the
 * setting groups it reads, their `--help`, `--version`, and the choice of what to run.
 * `serve`, the default, is not a command here: runCommand leaves it to src/server.ts.
 */
import {
  alignColumns,
  type CommandArguments,
  ConfigError,
  ENV_FILE_HELP,
  loadConfig,
  nearest,
  SERVED_BY_DEFAULT,
  SETTING_GROUPS,
  SETTING_LIST,
  type SettingGroup,
  settingsHelp,
} from '../config/index.js';
import { loadCatalog } from '../core/load-catalog.js';
import { VERSION } from '../core/version.js';
import type { Command, CommandContext, CommandIo, OptionSpec } from './command.js';
import { exportOptions, importOptions, typesOptions } from './command-options.js';

// Each command's code is imported when it runs: `serve` reads this table at every start, and
// importing them all (json-schema-to-typescript and prettier among them) cost it a third of a second.
const runMigrate = async (context: CommandContext) => (await import('./migrate.js')).runMigrate(context);
const runCheck = async (context: CommandContext) => (await import('./check.js')).runCheck(context);
const runBackup = async (context: CommandContext) => (await import('./backup.js')).runBackup(context);
const runImport = async (context: CommandContext) => (await import('./import/run-import.js')).runImport(context);
const runExport = async (context: CommandContext) => (await import('./export.js')).runExport(context);
const runRotateKeys = async (context: CommandContext) => (await import('./rotate-keys.js')).runRotateKeys(context);
const runTypes = async (context: CommandContext) => (await import('./types.js')).runTypes(context);

export const COMMANDS: readonly Command[] = [
  {
    name: 'migrate',
    usage: '[options]',
    summary: "create or update the database's schema, then exit",
    reads: ['database'],
    run: runMigrate,
  },
  {
    name: 'check',
    usage: '[options]',
    summary: 'list records with lone surrogates, schema breaks (SCHEMAS) or shared unique values',
    reads: ['database'],
    run: runCheck,
  },
  {
    name: 'backup',
    usage: 'FILE [options]',
    summary: 'copy the SQLite database to a new FILE while the server runs (for PostgreSQL: pg_dump)',
    positionals: true,
    // A copy of the SQLite file: it opens no store, so none of the connection's other settings apply.
    reads: [],
    alsoReads: ['databaseUrl'],
    run: runBackup,
  },
  {
    name: 'import',
    usage: 'FILE --collection NAME [options]',
    summary: 'load records from a JSON array or NDJSON file (- for standard input)',
    options: importOptions,
    positionals: true,
    reads: ['database', 'records'],
    // Plain-text passwords of accounts are hashed at the cost the server hashes them at.
    alsoReads: ['passwordHashCost'],
    run: runImport,
  },
  {
    name: 'export',
    usage: '--collection NAME [options]',
    summary: 'write every record of a collection as NDJSON or a JSON array',
    options: exportOptions,
    reads: ['database'],
    run: runExport,
  },
  {
    name: 'rotate-keys',
    usage: '[options]',
    summary: 'add a new signing key for access tokens; tokens signed before stay valid',
    reads: ['database'],
    // How long the keys it supersedes are kept: as long as a token they signed can live.
    alsoReads: ['accessTokenMinutes'],
    run: runRotateKeys,
  },
  {
    name: 'types',
    usage: '[--out FILE]',
    summary: "write TypeScript types of the collections' records (SCHEMAS), for restock-client",
    options: typesOptions,
    reads: [],
    alsoReads: ['schemas'],
    run: runTypes,
  },
];

const PROCESS_IO: CommandIo = { stdin: process.stdin, stdout: process.stdout, stderr: process.stderr };

/**
 * Runs the command `argv` names and resolves with its exit code, or with undefined when
 * `argv` asks to serve (`serve`, or no command at all), which src/server.ts then does.
 */
export async function runCommand(
  argv: readonly string[],
  io: CommandIo = PROCESS_IO,
  env: NodeJS.ProcessEnv = process.env,
): Promise<number | undefined> {
  const [first, ...rest] = argv;
  if (first === '--version' || first === '-v' || first === 'version') {
    io.stdout.write(`restock ${VERSION}\n`);
    return 0;
  }
  if (first === '--help' || first === '-h' || first === 'help') {
    io.stdout.write(fullHelp(servedCollections(env.SCHEMAS ?? '')));
    return 0;
  }
  if (first === undefined || first === 'serve' || first.startsWith('-')) return undefined;
  const command = COMMANDS.find((c) => c.name === first);
  if (!command) {
    const near = nearest(first, ['serve', ...COMMANDS.map((c) => c.name), 'help', 'version']);
    throw new ConfigError(
      `unknown command "${first}"; ${near ? `did you mean ${near}?` : 'restock --help lists the commands'}`,
    );
  }
  const parsed = loadConfig(rest, env, argumentsOf(command));
  if (parsed.help) {
    io.stdout.write(commandHelp(command));
    return 0;
  }
  return command.run({ config: parsed.config, options: parsed.options, positionals: parsed.positionals, io });
}

/** The arguments of `restock serve …` (or of a bare `restock …`), for loadConfig. */
export function serveArguments(argv: readonly string[]): string[] {
  return argv[0] === 'serve' ? argv.slice(1) : [...argv];
}

function argumentsOf(command: Command): CommandArguments {
  const options = Object.fromEntries(
    Object.entries(command.options ?? {}).map(([name, o]) => [
      name,
      o.short ? { type: o.type, short: o.short } : { type: o.type },
    ]),
  );
  return { options, positionals: command.positionals ?? false };
}

/**
 * The collections the `schemas` setting declares, as --help's first line names them ("users
 * and products"). Help is printed even when the folder is wrong, which serving then reports:
 * it then says what restock serves in general.
 */
export function servedCollections(schemas: string): string {
  try {
    const names = loadCatalog({ schemas, indexes: [] }).names;
    return names.length > 1 ? `${names.slice(0, -1).join(', ')} and ${names.at(-1)}` : (names[0] ?? SERVED_BY_DEFAULT);
  } catch {
    return SERVED_BY_DEFAULT;
  }
}

/**
 * What `restock --help` prints: each command in one line, the options every command takes,
 * and the groups of settings; a command's own --help lists the settings it reads.
 */
export function fullHelp(served = SERVED_BY_DEFAULT): string {
  const counted = (group: SettingGroup) => SETTING_LIST.filter((s) => s.group === group);
  return [
    `restock: a REST service for ${served}`,
    '',
    'Usage: restock [COMMAND] [options]',
    '',
    'Commands:',
    ...alignColumns([
      ['serve', 'serve the API (the default)'],
      ...COMMANDS.map((c) => [`${c.name} ${c.usage.replace(/ ?\[(options|--out FILE)\]$/, '')}`.trim(), c.summary]),
    ]),
    '',
    'Every command takes:',
    ...alignColumns([
      ENV_FILE_HELP,
      ['-h, --help', 'print this text; restock COMMAND --help prints the options and settings of one command'],
      ['-v, --version', 'print the version'],
    ]),
    '',
    'Settings, each a flag or an environment variable (the flag wins, then the variable, then --env-file), in groups;',
    'restock COMMAND --help lists those a command reads, restock serve --help all of them:',
    ...alignColumns(SETTING_GROUPS.map(({ group, about }) => [group, `${counted(group).length} settings: ${about}`])),
    '',
  ].join('\n');
}

/** What `restock COMMAND --help` prints: its own options, then only the settings it reads. */
export function commandHelp(command: Command): string {
  const option = ([name, o]: [string, OptionSpec]) => [
    `${o.short ? `-${o.short}, ` : '    '}--${name}${o.placeholder ? ` ${o.placeholder}` : ''}`,
    o.help,
  ];
  return [
    `Usage: restock ${command.name} ${command.usage}`,
    '',
    `${command.summary.charAt(0).toUpperCase()}${command.summary.slice(1)}.`,
    '',
    'Options:',
    ...alignColumns([
      ...Object.entries(command.options ?? {}).map(option),
      ENV_FILE_HELP,
      ['-h, --help', 'print this text'],
    ]),
    '',
    'Settings it reads, each a flag or an environment variable (the flag wins, then the variable, then --env-file):',
    '',
    ...settingsHelp(command.reads, command.alsoReads),
    '',
    'It takes every other setting too, unused; restock serve --help lists them all.',
    '',
  ].join('\n');
}
