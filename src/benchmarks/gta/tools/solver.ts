import { ApiaryError } from '../../../shared/index.js';
import type { ExecutableTool, SandboxOptions } from '../../../tools/index.js';
import { PythonSandbox } from '../../../tools/index.js';
import { runSolution } from './python-solution.js';

export interface PythonToolOptions {
  /** The sandbox to run in (shared between tools); made from `sandboxOptions` when absent. */
  sandbox?: PythonSandbox;
  sandboxOptions?: SandboxOptions;
  /** Wall-clock limit of one call; AgentLego's default is 20 s. */
  timeoutMs?: number;
}

/** AgentLego's timeout for Solver and Plot. */
export const GTA_PYTHON_TIMEOUT_MS = 20_000;

/** The `command` argument: a string (the catalog validates it, but a tool is also called by hand). */
export function commandArgument(toolName: string, args: Record<string, unknown>): string {
  const command = args.command;
  if (typeof command !== 'string')
    throw new ApiaryError('TOOL_FAILED', `${toolName}: argument "command" must be a string of Python code`);
  return command;
}

/**
 * GTA's Solver: runs markdown Python whose `solution()` uses sympy and returns `str(solution())`
 * as one text part, in the sandbox.
 */
export function solverTool(opts: PythonToolOptions = {}): ExecutableTool {
  const sandbox = opts.sandbox ?? new PythonSandbox(opts.sandboxOptions);
  const timeoutMs = opts.timeoutMs ?? GTA_PYTHON_TIMEOUT_MS;
  return {
    name: 'Solver',
    unavailable: () => sandbox.unavailable(['sympy']),
    async run(args, ctx) {
      const outcome = await runSolution(sandbox, commandArgument('Solver', args), 'text', {
        toolName: 'Solver',
        timeoutMs,
        signal: ctx.signal,
      });
      if (!('text' in outcome)) throw new ApiaryError('TOOL_FAILED', 'Solver: expected a text result');
      return [{ type: 'text', text: outcome.text }];
    },
  };
}
