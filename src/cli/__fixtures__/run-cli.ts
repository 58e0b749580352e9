import { spawn } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';

/** The repository root, the CLI's source entry and tsx's loader: CLI tests run the sources, not dist/. */
export const ROOT = resolve(import.meta.dirname, '../../..');
const MAIN = join(ROOT, 'src', 'cli', 'main.ts');
const TSX = pathToFileURL(join(ROOT, 'node_modules', 'tsx', 'dist', 'loader.mjs')).href;

/**
 * Runs `apiary <args>` in a child process with no APIARY_* or OpenAI settings from the caller's
 * environment, no colours and a fresh HOME (so no user config or cache leaks into a test).
 */
export function runCli(args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const env = { ...process.env };
  for (const k of Object.keys(env)) if (k.startsWith('APIARY_') || k === 'OPENAI_API_KEY') delete env[k];
  env.NO_COLOR = '1';
  env.HOME = mkdtempSync(join(tmpdir(), 'apiary-home-'));
  const child = spawn(process.execPath, ['--import', TSX, MAIN, ...args], { cwd: ROOT, env });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d) => {
    stdout += d;
  });
  child.stderr.on('data', (d) => {
    stderr += d;
  });
  return new Promise((res) => child.on('close', (code) => res({ code, stdout, stderr })));
}
