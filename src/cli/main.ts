#!/usr/bin/env node
import { exitQuietlyOnBrokenPipe } from './output.js';
import { runProgram } from './program.js';

exitQuietlyOnBrokenPipe(process.stdout);
exitQuietlyOnBrokenPipe(process.stderr);

runProgram(process.argv).then((code) => {
  process.exitCode = code;
});
