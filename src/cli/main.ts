#!/usr/bin/env node
import { CommanderError } from 'commander';
import { EXIT, exitQuietlyOnBrokenPipe, reportError } from './output.js';
import { buildProgram } from './program.js';

async function main(argv: string[]): Promise<number> {
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

exitQuietlyOnBrokenPipe(process.stdout);
exitQuietlyOnBrokenPipe(process.stderr);

main(process.argv).then((code) => {
  process.exitCode = code;
});
