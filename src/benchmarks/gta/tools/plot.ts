import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { ApiaryError } from '../../../shared/index.js';
import type { ExecutableTool } from '../../../tools/index.js';
import { PythonSandbox } from '../../../tools/index.js';
import { runSolution } from './python-solution.js';
import { commandArgument, GTA_PYTHON_TIMEOUT_MS, type PythonToolOptions } from './solver.js';

/**
 * GTA's Plot: runs markdown Python whose `solution()` returns a matplotlib figure, in the
 * sandbox; the figure is saved as PNG into the call's output folder (`plot-1.png`, `plot-2.png`,
 * … never overwriting) and returned as an image part.
 */
export function plotTool(opts: PythonToolOptions = {}): ExecutableTool {
  const sandbox = opts.sandbox ?? new PythonSandbox(opts.sandboxOptions);
  const timeoutMs = opts.timeoutMs ?? GTA_PYTHON_TIMEOUT_MS;
  return {
    name: 'Plot',
    unavailable: () => sandbox.unavailable(['matplotlib']),
    async run(args, ctx) {
      const outcome = await runSolution(sandbox, commandArgument('Plot', args), 'figure', {
        toolName: 'Plot',
        timeoutMs,
        signal: ctx.signal,
      });
      if (!('png' in outcome)) throw new ApiaryError('TOOL_FAILED', 'Plot: expected a figure');
      const path = await writeNewPng(ctx.outputDir, outcome.png);
      return [{ type: 'image', path, mediaType: 'image/png' }];
    },
  };
}

/** Writes `plot-N.png` with the first free N (exclusive create: parallel calls never collide). */
async function writeNewPng(dir: string, png: Buffer): Promise<string> {
  await mkdir(dir, { recursive: true });
  for (let n = 1; ; n++) {
    const path = join(dir, `plot-${n}.png`);
    try {
      await writeFile(path, png, { flag: 'wx' });
      return path;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    }
  }
}
