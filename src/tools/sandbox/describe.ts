import type { SandboxLimits } from './config.js';
import type { PythonRunResult } from './sandbox.js';

/**
 * Why a run ended badly, as a sentence a model or a person can act on; undefined for a clean
 * exit with status 0. Limits are named with their values.
 */
export function describeRunFailure(run: PythonRunResult, limits: SandboxLimits): string | undefined {
  switch (run.limit) {
    case 'wall-time':
      return `timed out after ${seconds(limits.wallMs)} s (wall-clock limit)`;
    case 'output':
      return `printed more than ${limits.maxOutputBytes} bytes (output limit); the run was stopped`;
    case 'cancelled':
      return 'cancelled';
    case 'disk-files':
      return `made more than ${limits.maxDiskFiles} files and folders (file count limit); the run was stopped`;
    case 'memory':
      return `used more than ${limits.memoryBytes} bytes of memory, all its processes together (memory limit); the run was stopped`;
  }
  if (run.signal === 'SIGXCPU') return `used more than ${limits.cpuSeconds} s of CPU time (CPU limit)`;
  if (run.signal === 'SIGXFSZ')
    return `wrote a file larger than ${limits.maxFileBytes} bytes (file size limit)`;
  if (run.signal) return `was killed by ${run.signal}`;
  if (run.exitCode !== 0) return `exited with status ${run.exitCode}${lastLine(run.stderr)}`;
  return undefined;
}

function seconds(ms: number): string {
  return String(Math.round(ms / 100) / 10);
}

function lastLine(stderr: string): string {
  const line = stderr.trim().split('\n').at(-1)?.trim();
  return line ? `: ${line}` : '';
}
