import { Command, CommanderError, Help } from 'commander';
import { registerBuiltinPlugins } from '../benchmarks/builtin.js';
import { type BenchmarkPlugin, listPlugins } from '../plugins/index.js';
import { ApiaryError } from '../shared/index.js';
import { type CommandEntry, coreCommands } from './command-list.js';
import { EXIT, reportError } from './output.js';

/**
 * The plugins the CLI serves: the built-in ones (registered here, the first time: this file and
 * src/index.ts are the only readers of the built-in list) and any registered since.
 */
export function cliPlugins(): BenchmarkPlugin[] {
  registerBuiltinPlugins();
  return listPlugins();
}

/**
 * Every top-level command: the core's, with each plugin's own commands placed after the command
 * they name (`after`), else at the end. A plugin command may not take a name already used.
 */
export function commandEntries(plugins: readonly BenchmarkPlugin[] = cliPlugins()): CommandEntry[] {
  const entries = coreCommands(plugins);
  for (const plugin of plugins)
    for (const command of plugin.commands ?? []) {
      if (entries.some((e) => e.name === command.name))
        throw new ApiaryError(
          'USAGE',
          `plugin "${plugin.name}": command "${command.name}" is already an apiary command`,
        );
      const at = command.after ? entries.findIndex((e) => e.name === command.after) : -1;
      entries.splice(at < 0 ? entries.length : at + 1, 0, command);
    }
  return entries;
}

/**
 * Runs one command line (`argv` as Node gives it: node, script, args…) to its exit status; errors
 * are printed as `error [CODE] message`. main.ts runs it on process.argv, tests in their own process.
 */
export async function runProgram(argv: string[]): Promise<number> {
  try {
    cliPlugins(); // before any command: every command asks the registry for what plugins add
    const program = await buildProgram(argv);
    await program.parseAsync(argv);
    return typeof process.exitCode === 'number' ? process.exitCode : EXIT.ok;
  } catch (error) {
    if (error instanceof CommanderError) {
      // --help and --version end through here with exit code 0.
      return error.exitCode === 0 ? EXIT.ok : EXIT.input;
    }
    return reportError(error, argv.includes('--debug'));
  }
}

/**
 * Builds the `apiary` command tree for one command line: the command it runs is registered from its
 * own file in `cli/commands/` (loaded now, with the domains it uses); every other command is only
 * its name and description, which is all the root help and commander's "unknown command" need.
 */
export async function buildProgram(argv: readonly string[]): Promise<Command> {
  const wanted = commandNameIn(argv);
  // a command may name a plugin's catalog or task (`--catalog gta`); the root help needs no plugin
  if (wanted !== undefined) (await import('../benchmarks/builtin.js')).registerBuiltinPlugins();
  return buildWith((entry) => entry.name === wanted);
}

/** The whole tree, every command file loaded: for tests that compare it with what buildProgram shows. */
export function buildFullProgram(): Promise<Command> {
  return buildWith(() => true);
}

/**
 * The top-level command a command line runs (`apiary [--debug] <command> …`, or `apiary help
 * <command>`), or undefined for `apiary`, `apiary --help`, `apiary --version`. The root's only
 * options take no value, so the first word that is not an option names the command.
 */
export function commandNameIn(argv: readonly string[]): string | undefined {
  const words = argv.slice(2).filter((a) => !a.startsWith('-'));
  return words[0] === 'help' ? words[1] : words[0];
}

/** How each command unloaded shows in the root help, as commander shows the loaded one. */
const placeholderTerms = new WeakMap<Command, string>();

async function buildWith(load: (entry: CommandEntry) => boolean): Promise<Command> {
  const program = new Command('apiary')
    .description('Catalogs, plan graphs, safe execution and benchmark scoring for tool-using LLM agents')
    .version('0.1.0')
    .option('--debug', 'print stack traces on errors')
    .configureHelp({
      subcommandTerm(this: Help, cmd: Command): string {
        return placeholderTerms.get(cmd) ?? Help.prototype.subcommandTerm.call(this, cmd);
      },
    })
    .exitOverride();
  for (const entry of commandEntries()) {
    if (load(entry)) (await entry.register())(program);
    else {
      const placeholder = program.command(entry.name).description(entry.description);
      placeholderTerms.set(placeholder, entry.usage ? `${entry.name} ${entry.usage}` : entry.name);
    }
  }
  oneLineUsageErrors(program, 'apiary');
  return program;
}

/**
 * Commander's own usage errors (unknown flag or command, missing argument) in the format of
 * docs/errors.md: the line `error [USAGE] …`, then one hint line (its "Did you mean" and the
 * command's help to read) instead of the whole help (111 lines for `eval`). Set on every command
 * once the tree is built, each with its own path for the hint.
 */
function oneLineUsageErrors(command: Command, path: string): void {
  command.showHelpAfterError(false).configureOutput({
    outputError: (text, write) => write(usageErrorLines(text, path)),
  });
  for (const sub of command.commands) oneLineUsageErrors(sub, `${path} ${sub.name()}`);
}

function usageErrorLines(text: string, path: string): string {
  const [first = '', ...rest] = text.trimEnd().split('\n');
  const suggestion = rest.map((l) => l.trim()).find((l) => l.startsWith('(Did you mean '));
  const message = first.replace(/^error: /, '').replace(/\.$/, '');
  const didYouMean = suggestion ? `did you mean ${suggestion.slice('(Did you mean '.length, -1)} ` : '';
  return `error [USAGE] ${message}\nhint: ${didYouMean}see \`${path} --help\`\n`;
}
