import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { type ScriptedOpenAiServer, startScriptedOpenAiServer } from '../../test/index.js';

const ROOT = resolve(import.meta.dirname, '../../..');
const MAIN = join(ROOT, 'src', 'cli', 'main.ts');
const TSX = pathToFileURL(join(ROOT, 'node_modules', 'tsx', 'dist', 'loader.mjs')).href;
const FIXTURES = join(ROOT, 'src/tasks/shortcutsbench/__fixtures__/authored');

function runCli(args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
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

let server: ScriptedOpenAiServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

describe('apiary eval shortcuts (authored fixtures)', { timeout: 60_000 }, () => {
  it('runs the baseline without a model: tables in the terminal, both modes in summary.json', async () => {
    const out = join(mkdtempSync(join(tmpdir(), 'apiary-shortcuts-')), 'run');
    const r = await runCli(['eval', 'shortcuts', '--data', FIXTURES, '--levels', '1,2', '--out', out]);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('ShortcutsBench (official) — 7 shortcuts');
    expect(r.stdout).toContain(
      'API selection          57.14 (8/14)         100.00 (3/3)         45.45 (5/11)',
    );
    const summary = JSON.parse(readFileSync(join(out, 'summary.json'), 'utf8'));
    expect(summary.records).toBe(7);
    expect(summary.report.official.api.overall).toEqual({ num: 8, den: 14, accuracy: (100 * 8) / 14 });
    expect(summary.report.corrected.primitive.overall).toEqual({ num: 3, den: 5, accuracy: 60 });
  });

  it('runs the teacher-forced solver against a scripted model: one call per evaluated L1 action', async () => {
    server = await startScriptedOpenAiServer({
      respond: () =>
        '{"WFWorkflowActionIdentifier": "is.workflow.actions.getbatterylevel", "WFWorkflowActionParameters": {}}',
    });
    const out = join(mkdtempSync(join(tmpdir(), 'apiary-shortcuts-')), 'run');
    const r = await runCli([
      'eval',
      'shortcuts',
      '--data',
      FIXTURES,
      '--option',
      'levels=1',
      '--base-url',
      server.url,
      '--model',
      'scripted',
      '--out',
      out,
    ]);
    expect(r.code).toBe(0);
    const summary = JSON.parse(readFileSync(join(out, 'summary.json'), 'utf8'));
    // L1: battery (getbatterylevel ✓), copy date (setclipboard ✗), speak clipboard (speaktext ✗)
    expect(summary.records).toBe(3);
    expect(summary.modelCalls).toBe(3);
    expect(summary.report.official.api.overall).toEqual({ num: 1, den: 3, accuracy: 100 / 3 });
  });
});
