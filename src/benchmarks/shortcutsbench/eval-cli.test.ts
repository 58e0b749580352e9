import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { ROOT } from '../../cli/__fixtures__/run-cli.js';
import { runCliInProcess } from '../../cli/__fixtures__/run-cli-in-process.js';
import { readResultsFile } from '../../harness/index.js';
import { type ScriptedOpenAiServer, startScriptedOpenAiServer } from '../../test/index.js';
import { shortcutsDefinition } from './register.js';

const FIXTURES = join(ROOT, 'src/benchmarks/shortcutsbench/__fixtures__/authored');

let server: ScriptedOpenAiServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

describe('apiary eval shortcuts (authored fixtures)', { timeout: 60_000 }, () => {
  it('runs the baseline without a model: tables in the terminal, both modes in summary.json', async () => {
    const out = join(mkdtempSync(join(tmpdir(), 'apiary-shortcuts-')), 'run');
    const r = await runCliInProcess([
      'eval',
      'shortcuts',
      '--data',
      FIXTURES,
      '--levels',
      '1,2',
      '--out',
      out,
    ]);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('ShortcutsBench (official) — 7 shortcuts');
    expect(r.stdout).toContain(
      'API selection          57.14 (8/14)         100.00 (3/3)         45.45 (5/11)',
    );
    const summary = JSON.parse(readFileSync(join(out, 'summary.json'), 'utf8'));
    expect(summary.records).toBe(7);
    expect(summary.report.official.api.overall).toEqual({ num: 8, den: 14, accuracy: (100 * 8) / 14 });
    expect(summary.report.corrected.primitive.overall).toEqual({ num: 3, den: 5, accuracy: 60 });
    // every record fits the task's output and score schemas and carries its events, ending with a stop
    const { samples } = readResultsFile(join(out, 'results.jsonl'), () => shortcutsDefinition);
    expect(samples).toHaveLength(7);
    for (const s of samples) {
      expect(s.events!.at(-1)).toMatchObject({ type: 'stop', reason: 'final' });
      expect(s.events!.filter((e) => e.type === 'turn')).toEqual([]); // the baseline calls no model
    }
  });

  it('runs the teacher-forced solver against a scripted model: one call per evaluated L1 action', async () => {
    server = await startScriptedOpenAiServer({
      respond: () =>
        '{"WFWorkflowActionIdentifier": "is.workflow.actions.getbatterylevel", "WFWorkflowActionParameters": {}}',
    });
    const out = join(mkdtempSync(join(tmpdir(), 'apiary-shortcuts-')), 'run');
    const r = await runCliInProcess([
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
