import { cpSync, existsSync, mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { writeToolBenchFixtures } from '../../benchmarks/toolbench/__fixtures__/data-root.js';
import { type ScriptedOpenAiServer, startScriptedOpenAiServer } from '../../test/index.js';
import { ROOT } from '../__fixtures__/run-cli.js';
import { runCliInProcess } from '../__fixtures__/run-cli-in-process.js';

/** A --data root laid out as ../shared/data, made of the repository's mini sets and fixtures. */
function miniDataRoot(): string {
  const root = mkdtempSync(join(tmpdir(), 'apiary-data-'));
  cpSync(join(ROOT, 'examples', 'appbench-mini'), join(root, 'appbench'), { recursive: true });
  cpSync(join(ROOT, 'src/benchmarks/shortcutsbench/__fixtures__/authored'), join(root, 'shortcutsbench'), {
    recursive: true,
  });
  return writeToolBenchFixtures(root);
}

const summaryOf = (dir: string) => JSON.parse(readFileSync(join(dir, 'summary.json'), 'utf8'));

let server: ScriptedOpenAiServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

describe('apiary eval all', { timeout: 120_000 }, () => {
  it('runs every task with one scripted model into sub-folders and writes one report', async () => {
    server = await startScriptedOpenAiServer({
      respond: () =>
        '{"WFWorkflowActionIdentifier": "is.workflow.actions.getbatterylevel", "WFWorkflowActionParameters": {}}',
    });
    const out = join(mkdtempSync(join(tmpdir(), 'apiary-all-')), 'all');
    const r = await runCliInProcess([
      'eval',
      'all',
      '--model',
      'scripted',
      '--base-url',
      server.url,
      '--data',
      miniDataRoot(),
      '--limit',
      '1',
      '--out',
      out,
    ]);
    expect(r.stderr).not.toContain('failed:');
    expect(r.code).toBe(0);
    expect(readdirSync(out).sort()).toEqual(['appbench', 'report.html', 'shortcuts', 'toolbench-retrieval']);
    // first sample of each AppBench category, one flat-prompt call each
    const ab = summaryOf(join(out, 'appbench'));
    expect([ab.spec.solver.name, ab.spec.model.id, ab.records, ab.modelCalls]).toEqual([
      'flat',
      'scripted',
      4,
      4,
    ]);
    const sc = summaryOf(join(out, 'shortcuts'));
    expect([sc.spec.solver.name, sc.spec.model.id]).toEqual(['teacher-forced', 'scripted']);
    expect(sc.records).toBe(4); // the first shortcut of each of the 4 levels
    const tb = summaryOf(join(out, 'toolbench-retrieval'));
    expect([tb.spec.solver.name, tb.spec.model, tb.records]).toEqual(['bm25', null, 2]);
    expect(server.requests.length).toBe(ab.modelCalls + sc.modelCalls);
    expect(new Set(server.requests.map((q) => q.model))).toEqual(new Set(['scripted']));

    const html = readFileSync(join(out, 'report.html'), 'utf8');
    expect(r.stdout).toContain(`report: ${join(out, 'report.html')}`);
    expect(html.match(/<section id="task-/g)).toHaveLength(3);
    for (const title of ['AppBench / MetaBench', 'ShortcutsBench', 'ToolBench retrieval'])
      expect(html).toContain(`<h2>${title}</h2>`);
    expect(html.match(/<svg/g)).toHaveLength(3 + 4 + 1);
    expect(html).toContain('<td>GPT-4o (published, test (full))</td>');
    expect(html).not.toMatch(/<script/i);

    // apiary report over two of the sub-folders: one HTML page, or each text summary in turn
    const page = join(out, 'two.html');
    const two = await runCliInProcess([
      'report',
      join(out, 'appbench'),
      join(out, 'toolbench-retrieval'),
      '--html',
      page,
    ]);
    expect([two.code, two.stdout]).toEqual([0, `report: ${page}\n`]);
    expect(readFileSync(page, 'utf8').match(/<section id="task-/g)).toHaveLength(2);
    const text = await runCliInProcess(['report', join(out, 'appbench'), join(out, 'toolbench-retrieval')]);
    expect(text.code).toBe(0);
    expect(text.stdout).toContain('AppBench — 4 samples');
    expect(text.stdout).toContain('ToolBench retrieval: metrics ×100');
  });

  it('without --data: tasks with bundled data run, the others are skipped and named (--json: one document)', async () => {
    const out = join(mkdtempSync(join(tmpdir(), 'apiary-all-')), 'all');
    const r = await runCliInProcess(['eval', 'all', '--limit', '1', '--out', out, '--json']);
    expect(r.code).toBe(0);
    const doc = JSON.parse(r.stdout);
    expect([doc.out, doc.report]).toEqual([out, join(out, 'report.html')]);
    expect(doc.tasks.map((t: { task: string; status: string }) => `${t.task}: ${t.status}`)).toEqual([
      'appbench: ran',
      'gta: skipped',
      'shortcuts: skipped',
      'toolbench-retrieval: skipped',
    ]);
    expect(doc.tasks[1].reason).toMatch(/^\[USAGE\] solver "react" of gta needs a model/);
    expect(doc.tasks[2].reason).toMatch(/^\[NOT_FOUND\] shortcuts: pass --data DIR, the folder with /);
    expect(existsSync(join(out, 'shortcuts', 'results.jsonl'))).toBe(false);
    const html = readFileSync(join(out, 'report.html'), 'utf8');
    expect(html.match(/<section id="task-/g)).toHaveLength(1);
    expect(html).toContain('shortcuts: skipped ([NOT_FOUND] shortcuts: pass --data DIR');
  });

  it('refuses a task-specific flag', async () => {
    const r = await runCliInProcess(['eval', 'all', '--solver', 'flat', '--out', join(tmpdir(), 'never')]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('error [USAGE] --solver names one task');
  });

  it('a read-only --out is one USAGE line before any task runs (exit 2)', async () => {
    const r = await runCliInProcess(['eval', 'all', '--out', '/proc/apiary-runs']);
    expect(r.code).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr).toBe(
      'error [USAGE] --out must be a path in a writable folder (/proc is not) (got "/proc/apiary-runs")\n',
    );
  });
});
