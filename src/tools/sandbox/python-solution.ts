import { imageSize } from 'image-size';
import { ApiaryError } from '../../shared/index.js';
import { SandboxLimitsSchema } from './config.js';
import { describeRunFailure } from './describe.js';
import type { PythonSandbox } from './sandbox.js';

/** What `solution()` must return: a value shown as `str(...)`, or a matplotlib figure. */
export type SolutionKind = 'text' | 'figure';

export type SolutionOutcome = { text: string } | { png: Buffer };

export interface PythonSolutionOptions {
  /** Names the tool in error messages. */
  toolName: string;
  timeoutMs: number;
  /** Python run in the code's globals first (names a tool's description lets the code use unimported). */
  header?: string;
  /** Modules the run needs (default: matplotlib for a figure, none for text). */
  modules?: readonly string[];
  signal?: AbortSignal | undefined;
}

const COMMAND_FILE = 'command.py';
const FIGURE_FILE = 'figure.png';

/**
 * The program run in the sandbox: the header and the code are executed in one fresh globals dict
 * and `solution()` is evaluated there. The code's own prints go to stderr, so the real stdout
 * carries only the JSON report (`text`, `image` or `error`), written by the original process
 * alone (forked copies of it exit silently).
 */
export function pythonSolutionProgram(kind: SolutionKind, header = ''): string {
  const finish =
    kind === 'text'
      ? '    _report(text=str(_value))'
      : [
          '    from matplotlib.figure import Figure',
          '    if not isinstance(_value, Figure):',
          "        raise TypeError('The `solution` function must return the matplotlib figure.')",
          `    _value.savefig(${JSON.stringify(FIGURE_FILE)}, format='png')`,
          `    _report(image=${JSON.stringify(FIGURE_FILE)})`,
        ].join('\n');
  return `import json, os, sys
_report_to = os.fdopen(os.dup(1), 'w', encoding='utf-8')
os.dup2(2, 1)
_pid = os.getpid()
def _report(**fields):
    if os.getpid() != _pid:
        os._exit(0)  # a process the code forked: only the original reports
    _report_to.write(json.dumps(fields))
    _report_to.flush()
try:
    _globals = {}
    exec(${JSON.stringify(header)}, _globals)
    with open(${JSON.stringify(COMMAND_FILE)}, encoding='utf-8') as _file:
        _source = _file.read()
    exec(compile(_source, ${JSON.stringify(COMMAND_FILE)}, 'exec'), _globals)
    _value = eval('solution()', _globals)
${finish}
except BaseException as _error:
    _report(error=type(_error).__name__ + (': ' + str(_error) if str(_error) else ''))
`;
}

/**
 * Runs Python `code` defining `solution()` in the sandbox and returns its value as text or its
 * figure as a checked PNG. Errors of the code (an exception, a limit hit) are thrown as
 * `TOOL_FAILED` with a message the model can read and fix its code from.
 */
export async function runPythonSolution(
  sandbox: PythonSandbox,
  code: string,
  kind: SolutionKind,
  opts: PythonSolutionOptions,
): Promise<SolutionOutcome> {
  const limits = SandboxLimitsSchema.parse({ ...sandbox.options.limits, wallMs: opts.timeoutMs });
  const run = await sandbox.run({
    code: pythonSolutionProgram(kind, opts.header),
    files: { [COMMAND_FILE]: code },
    modules: opts.modules ?? (kind === 'figure' ? ['matplotlib'] : []),
    limits: { wallMs: opts.timeoutMs },
    read: [FIGURE_FILE],
    ...(opts.signal ? { signal: opts.signal } : {}),
  });
  const report = parseReport(run.stdout);
  if (report && 'error' in report) throw new ApiaryError('TOOL_FAILED', report.error);
  const failure = describeRunFailure(run, limits);
  if (failure) throw new ApiaryError('TOOL_FAILED', `${opts.toolName}: the code ${failure}`);
  if (report && 'text' in report) return { text: report.text };
  const figure = run.files.find((f) => f.name === FIGURE_FILE)?.data;
  if (report && 'image' in report && figure) return { png: checkFigure(figure, opts.toolName) };
  throw new ApiaryError('TOOL_FAILED', `${opts.toolName}: the code ended without a result`);
}

type Report = { text: string } | { image: string } | { error: string };

function parseReport(stdout: string): Report | undefined {
  try {
    const value = JSON.parse(stdout) as Record<string, unknown>;
    for (const key of ['error', 'text', 'image'] as const)
      if (typeof value[key] === 'string') return { [key]: value[key] } as Report;
  } catch {
    // killed before reporting
  }
  return undefined;
}

/** A figure above this many pixels is refused (a 20000×20000 PNG of 48 KB decodes to 1.2 GB). */
const MAX_FIGURE_PIXELS = 40_000_000;
/** A figure file above this many bytes is refused. */
const MAX_FIGURE_BYTES = 16 * 1024 * 1024;

/**
 * The figure the code saved, checked before anything decodes it: a PNG by its header, at most
 * MAX_FIGURE_BYTES long and MAX_FIGURE_PIXELS large (read from the header, never decoded here).
 * The code controls `savefig`, so the file may be anything.
 */
function checkFigure(png: Buffer, toolName: string): Buffer {
  const refuse = (why: string) => new ApiaryError('TOOL_FAILED', `${toolName}: the figure ${why}`);
  if (png.length > MAX_FIGURE_BYTES)
    throw refuse(`file is ${png.length} bytes, above the limit of ${MAX_FIGURE_BYTES} bytes`);
  let size: { width?: number; height?: number; type?: string };
  try {
    size = imageSize(png);
  } catch {
    throw refuse('file is not an image');
  }
  if (size.type !== 'png') throw refuse(`file is ${size.type ?? 'not an image'}, not a PNG`);
  const { width = 0, height = 0 } = size;
  if (width * height > MAX_FIGURE_PIXELS)
    throw refuse(
      `is ${width}×${height} = ${width * height} pixels, above the limit of ${MAX_FIGURE_PIXELS} pixels`,
    );
  return png;
}
