/**
 * The `restock` command line: `serve` (the default, run by src/server.ts), `migrate`,
 * `check`, `import`, `export`, `--help` and `--version`.
 */
import { type CommandArguments, ConfigError, loadConfig, settingsHelp } from '../config.js';
import { VERSION } from '../version.js';
import { runCheck } from './check.js';
import type { Command, CommandIo, OptionSpec } from './command.js';
import { exportOptions, runExport } from './export.js';
import { importOptions, runImport } from './import.js';
import { runMigrate } from './migrate.js';

export const COMMANDS: readonly Command[] = [
  {
    name: 'migrate',
    usage: '[options]',
    summary: "create or update the database's schema, then exit",
    run: runMigrate,
  },
  {
    name: 'check',
    usage: '[options]',
    summary: 'list the records that hold a lone surrogate or break their schema (SCHEMAS), and shared unique values',
    run: runCheck,
  },
  {
    name: 'import',
    usage: 'FILE --collection NAME [options]',
    summary: 'load records from a JSON array or NDJSON file (- for standard input)',
    options: importOptions,
    positionals: true,
    run: runImport,
  },
  {
    name: 'export',
    usage: '--collection NAME [options]',
    summary: 'write every record of a collection as NDJSON or a JSON array',
    options: exportOptions,
    run: runExport,
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
    io.stdout.write(fullHelp());
    return 0;
  }
  if (first === undefined || first === 'serve' || first.startsWith('-')) return undefined;
  const command = COMMANDS.find((c) => c.name === first);
  if (!command) throw new ConfigError(`unknown command "${first}"; restock --help lists the commands`);
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

/** What `restock --help` prints: the commands, then the settings every command takes. */
export function fullHelp(): string {
  const usage = [
    ['[serve] [options]', 'serve the API (the default)'],
    ...COMMANDS.map((c) => [`${c.name} ${c.usage}`, c.summary]),
    ['--version', 'print the version'],
    ['--help', 'print this text; COMMAND --help for its options'],
  ];
  return [
    'restock: a REST service for users and products',
    '',
    'Usage:',
    ...usage.map(([args, summary]) => `  restock ${(args as string).padEnd(42)}${summary}`),
    '',
    'Settings, taken by every command as a flag or an environment variable:',
    ...settingsHelp(),
    '',
  ].join('\n');
}

function commandHelp(command: Command): string {
  const option = ([name, o]: [string, OptionSpec]) =>
    `  ${`${o.short ? `-${o.short}, ` : '    '}--${name}${o.placeholder ? ` ${o.placeholder}` : ''}`.padEnd(28)}${o.help}`;
  return [
    `Usage: restock ${command.name} ${command.usage}`,
    '',
    `${command.summary.charAt(0).toUpperCase()}${command.summary.slice(1)}.`,
    '',
    ...(command.options ? ['Options:', ...Object.entries(command.options).map(option), ''] : []),
    'Settings:',
    ...settingsHelp(),
    '',
  ].join('\n');
}
