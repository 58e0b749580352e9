import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

const root = join(import.meta.dirname, '../..');
const main = join(root, 'src/cli/main.ts');

/** Spawns the CLI with its stdout read end closed at once, as `apiary ... | head -0` does. */
function runWithClosedStdout(args: string[]): Promise<{ code: number | null; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', main, ...args], {
      cwd: root,
      env: { ...process.env, APIARY_DATA: '' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    child.stdout.destroy();
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => {
      stderr += chunk.toString();
    });
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stderr }));
  });
}

describe('apiary piped into a reader that closes early (EPIPE)', () => {
  it('catalog export exits 0 without a stack trace', async () => {
    const r = await runWithClosedStdout(['catalog', 'export', '--catalog', 'appbench', '--format', 'openai']);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
  });

  it('catalog list exits 0 without a stack trace', async () => {
    const r = await runWithClosedStdout(['catalog', 'list', '--catalog', 'appbench']);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
  });
});
