import {
  type PythonSandbox,
  pythonSolutionProgram,
  runPythonSolution,
  type SolutionKind,
  type SolutionOutcome,
} from '../../../tools/index.js';

/**
 * The code inside a GTA `command`, as AgentLego's Solver and Plot take it: the text between
 * "```python" and the next "```", else between the first two "```", else the whole command.
 */
export function stripMarkdownCode(command: string): string {
  if (command.includes('```python')) return command.split('```python')[1]!.split('```')[0]!;
  if (command.includes('```')) return command.split('```')[1]!.split('```')[0] ?? '';
  return command;
}

/** What AgentLego runs before the code (names the tool's description lets the code use unimported). */
const HEADERS: Record<SolutionKind, string> = {
  text: 'from sympy import symbols, Eq, solve',
  figure: 'import matplotlib.pyplot as plt',
};

/** The modules each header imports: the sandbox checks they are installed. */
const MODULES: Record<SolutionKind, readonly string[]> = { text: ['sympy'], figure: ['matplotlib'] };

/** The program AgentLego's runtime runs for a Solver (`text`) or Plot (`figure`) command. */
export function solutionProgram(kind: SolutionKind): string {
  return pythonSolutionProgram(kind, HEADERS[kind]);
}

/**
 * Runs a GTA command's `solution()` in the sandbox with AgentLego's header. Errors of the code
 * (an exception, a limit hit) are thrown as `TOOL_FAILED` with a message the model can read.
 */
export function runSolution(
  sandbox: PythonSandbox,
  command: string,
  kind: SolutionKind,
  opts: { toolName: string; timeoutMs: number; signal?: AbortSignal | undefined },
): Promise<SolutionOutcome> {
  return runPythonSolution(sandbox, stripMarkdownCode(command), kind, {
    ...opts,
    header: HEADERS[kind],
    modules: MODULES[kind],
  });
}
