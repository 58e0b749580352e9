import { printJson } from '../../cli/output.js';
import type { ScoreFlags } from '../../plugins/index.js';
import { ApiaryError, InputInvalidError, type PyJson } from '../../shared/index.js';
import { embeddingsClientFromEnv } from '../../tools/index.js';
import { loadGtaDataset, readGtaStepPredictions, scoreGtaE2e, scoreGtaSteps } from './index.js';

/** The steps of one record: OpenCompass e2e files hold `[steps]` (one list per user turn), read `[0]`. */
const firstTurn = (list: readonly PyJson[]): PyJson[] =>
  list.length > 0 && Array.isArray(list[0]) ? (list[0] as PyJson[]) : [...list];

/**
 * `apiary score gta`: an OpenCompass prediction file (`--mode step`: InstAcc, ToolAcc, ArgAcc,
 * SummAcc; `--mode e2e`: AnsAcc, AnsAcc w/ ImgGen, tool F1), or a harness results file
 * (`results.jsonl` of `apiary eval gta`) re-scored through the task.
 */
export async function scoreGtaPredictions(
  flags: ScoreFlags,
  core: { scoreWithTask(flags: ScoreFlags & { predictions: string }): Promise<void> },
): Promise<void> {
  const mode = flags.mode === 'both' ? 'step' : flags.mode;
  if (mode !== 'step' && mode !== 'e2e')
    throw new ApiaryError('USAGE', `gta: --mode must be step or e2e (got ${flags.mode})`);
  if (!flags.data)
    throw new ApiaryError('USAGE', 'gta: pass --data DIR (the folder with dataset.json and image/)');
  if (!flags.predictions)
    throw new ApiaryError(
      'USAGE',
      'gta: pass --predictions FILE (an OpenCompass prediction file, or the results.jsonl of apiary eval gta)',
    );
  const predictionsFile = flags.predictions;
  if (predictionsFile.endsWith('.jsonl'))
    return core.scoreWithTask({
      ...flags,
      predictions: predictionsFile,
      option: [...(flags.option ?? []), `mode=${mode}`],
    });
  const embedder = embeddingsClientFromEnv(process.env, {
    ...(typeof flags.embeddingsBaseUrl === 'string' ? { baseURL: flags.embeddingsBaseUrl } : {}),
    ...(typeof flags.embeddingsModel === 'string' ? { model: flags.embeddingsModel } : {}),
  });
  const dataset = loadGtaDataset(flags.data);
  const refs = new Map(dataset.records.map((r) => [r.key, r.gtAnswer]));
  const records = readGtaStepPredictions(predictionsFile);
  for (const r of records)
    if (!refs.has(r.key))
      throw new InputInvalidError(
        { file: predictionsFile, record: r.key },
        `unknown sample index (not in ${dataset.root}/dataset.json)`,
      );
  const notes = [`${records.length} of ${dataset.records.length} samples have predictions`];
  const f = (x: number) => x.toFixed(2);
  if (mode === 'e2e') {
    const scores = await scoreGtaE2e(
      records.map((r) => ({
        predictions: firstTurn(r.predictions),
        golds: firstTurn(r.golds),
        reference: refs.get(r.key)!,
      })),
      embedder,
    );
    if (scores.unscoredSubjective || scores.unscoredImgGen)
      notes.push(
        `no embeddings endpoint: ${scores.unscoredSubjective} subjective and ${scores.unscoredImgGen} image-generation record(s) scored 0`,
      );
    if (flags.json) {
      printJson({ task: 'gta', mode, predictions: predictionsFile, data: dataset.root, ...scores, notes });
      return;
    }
    const c = scores.categoryF1;
    process.stdout.write(
      `GTA end-to-end\nAnsAcc ${f(scores.ansAcc)}  AnsAcc w/ ImgGen ${f(scores.ansAccImg)}  P_F1 ${f(c.perception.f1)}  O_F1 ${f(c.operation.f1)}  L_F1 ${f(c.logic.f1)}  C_F1 ${f(c.creativity.f1)}\ntool calls ${scores.toolCall} (errors ${scores.toolCallError})\n${notes.join('\n')}\n`,
    );
    return;
  }
  const scores = await scoreGtaSteps(
    records.map((r) => ({ ...r, reference: refs.get(r.key)! })),
    embedder,
  );
  if (scores.unscoredSubjective)
    notes.push(
      `${scores.unscoredSubjective} subjective answer step(s) scored 0 (no embedder): SummAcc is a lower bound`,
    );
  if (flags.json) {
    printJson({
      task: 'gta',
      mode: 'step',
      predictions: flags.predictions,
      data: dataset.root,
      ...scores,
      notes,
    });
    return;
  }
  process.stdout.write(
    `GTA step-by-step\nInstAcc ${f(scores.instAcc)}  ToolAcc ${f(scores.toolAcc)}  ArgAcc ${f(scores.argAcc)}  SummAcc ${f(scores.summAcc)}\ntool calls ${scores.toolCall} (errors ${scores.toolCallError})\n${notes.join('\n')}\n`,
  );
}
