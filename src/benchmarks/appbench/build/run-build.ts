import { EXIT_INTERRUPTED, trapSigint } from '../../../cli/interrupt.js';
import { createProgressReporter, progressModeFor } from '../../../harness/index.js';
import { resolveModelSetup } from '../../../models/index.js';
import { appBenchCatalogSource } from '../catalog.js';
import { type BuildAppBenchReport, buildAppBench } from './build-appbench.js';
import type { ReferenceRule, RepeatRule } from './planning-path.js';

export interface RunAppBenchBuildOptions {
  sgdDir: string;
  out: string;
  seed: number;
  threshold: number;
  refs: ReferenceRule;
  repeats: RepeatRule;
  limit?: number;
  json: boolean;
  model: { model?: string; baseURL?: string; apiKeyEnv?: string };
}

/** The CLI side of the build: the model from flags/env, Ctrl-C, the progress bar and the summary. */
export async function runAppBenchBuild(o: RunAppBenchBuildOptions): Promise<BuildAppBenchReport> {
  const setup = resolveModelSetup(o.model);
  const interrupt = trapSigint('no new instruction starts; the records done so far are written');
  const reporter = createProgressReporter({ label: 'build', mode: progressModeFor(process.stderr, o.json) });
  const t0 = performance.now();
  let report: BuildAppBenchReport;
  try {
    report = await buildAppBench({
      sgdDir: o.sgdDir,
      out: o.out,
      catalog: appBenchCatalogSource.load({}),
      seed: o.seed,
      threshold: o.threshold,
      refs: o.refs,
      repeats: o.repeats,
      ...(o.limit !== undefined ? { limit: o.limit } : {}),
      ...(setup ? { model: { model: setup.model, id: setup.modelId } } : {}),
      signal: interrupt.signal,
      onProgress: (p) => {
        const elapsedMs = performance.now() - t0;
        const doneNow = p.done - p.skipped;
        const rate = elapsedMs > 0 ? (doneNow * 1000) / elapsedMs : 0;
        reporter.update({
          done: p.done,
          total: p.total,
          skipped: p.skipped,
          errors: p.failed,
          elapsedMs,
          rate,
          etaMs: rate > 0 ? ((p.total - p.done) / rate) * 1000 : null,
        });
      },
    });
  } finally {
    reporter.stop();
    interrupt.release();
  }
  if (!o.json) {
    const lines = Object.entries(report.perCategory).map(
      ([c, v]) => `  ${c}: ${v.kept} kept, ${v.dropped} dropped of ${v.candidates} candidates`,
    );
    const rejected = Object.entries(report.rejectedDialogues)
      .filter(([, n]) => n > 0)
      .map(([k, n]) => `${k} ${n}`)
      .join(', ');
    process.stdout.write(
      `${report.out}: test_{ss,sm,ms,mm}.json and manifest.json, instructions ${report.instructions === 'model' ? `by ${setup?.modelId}` : 'templated (no model)'}${report.resumed ? `, ${report.resumed} candidate(s) resumed` : ''}\n` +
        `${lines.join('\n')}\n` +
        `dialogues without a path: ${rejected || 'none'}\n` +
        (report.failed
          ? `${report.failed} model call(s) failed: rerun the same command to try them again\n`
          : ''),
    );
  }
  if (report.interrupted) process.exitCode = EXIT_INTERRUPTED;
  return report;
}
