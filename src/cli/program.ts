import { Command, CommanderError, Help } from 'commander';
import { COMMAND_LIST, type CommandEntry } from './command-list.js';
import { EXIT, reportError } from './output.js';

/**
 * Runs one command line (`argv` as Node gives it: node, script, args…) to its exit status; errors
 * are printed as `error [CODE] message`. main.ts runs it on process.argv, tests in their own process.
 */
export async function runProgram(argv: string[]): Promise<number> {
  try {
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
    .showHelpAfterError()
    // commander's own usage errors in the one format (`error [USAGE] …`); subcommands inherit this
    .configureOutput({ outputError: (text, write) => write(text.replace(/^error: /, 'error [USAGE] ')) })
    .configureHelp({
      subcommandTerm(this: Help, cmd: Command): string {
        return placeholderTerms.get(cmd) ?? Help.prototype.subcommandTerm.call(this, cmd);
      },
    })
    .exitOverride();
  for (const entry of COMMAND_LIST) {
    if (load(entry)) (await entry.register())(program);
    else {
      const placeholder = program.command(entry.name).description(entry.description);
      placeholderTerms.set(placeholder, entry.usage ? `${entry.name} ${entry.usage}` : entry.name);
    }
  }
  return program;
}
