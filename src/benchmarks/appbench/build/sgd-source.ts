import { existsSync, readdirSync, statSync } from 'node:fs';
import { basename, join } from 'node:path';
import { z } from 'zod';
import { ApiaryError, parseWith, readJsonFile } from '../../../shared/index.js';
import { FrameSchema } from '../apps/sgd-database.js';

/**
 * The parts of a Schema-Guided Dialogue `dialogues_NNN.json` the builder reads: the utterances
 * (for the instruction prompt) and the SYSTEM frames' `service_call` / `service_results` (for the
 * planning path). Other fields are ignored.
 */
const DialogueSchema = z.object({
  dialogue_id: z.string().min(1),
  services: z.array(z.string()),
  turns: z.array(z.object({ speaker: z.string(), utterance: z.string(), frames: z.array(FrameSchema) })),
});

/** One API call a SYSTEM turn made, with the rows it returned. */
export interface SgdCall {
  turn: number;
  service: string;
  intent: string;
  params: Record<string, string>;
  results: Array<Record<string, string>>;
}

export interface SgdSourceDialogue {
  /** `<split>:<dialogue_id>` (`test:3_00126`): SGD ids are unique within a split only. */
  id: string;
  services: string[];
  turns: Array<{ speaker: string; utterance: string }>;
  calls: SgdCall[];
}

/**
 * The dialogue files under `dir`: `dir/{train,dev,test}/dialogues_*.json`, or `dir/dialogues_*.json`
 * when `dir` is one split. Sorted, so a build sees the same dialogues in the same order everywhere.
 */
function sgdDialogueFilesIn(dir: string): Array<{ split: string; path: string }> {
  if (!existsSync(dir) || !statSync(dir).isDirectory())
    throw new ApiaryError('NOT_FOUND', `--sgd ${dir}: no such folder (an SGD release: train/, dev/, test/)`);
  const filesOf = (d: string, split: string) =>
    readdirSync(d)
      .filter((n) => /^dialogues_\d+\.json$/.test(n))
      .sort()
      .map((n) => ({ split, path: join(d, n) }));
  const own = filesOf(dir, basename(dir));
  if (own.length) return own;
  const out = ['train', 'dev', 'test'].flatMap((split) =>
    existsSync(join(dir, split)) ? filesOf(join(dir, split), split) : [],
  );
  if (!out.length)
    throw new ApiaryError(
      'NOT_FOUND',
      `--sgd ${dir}: no dialogues_*.json in it nor in its train/, dev/, test/ folders`,
    );
  return out;
}

/** Every dialogue of the SGD release at `dir`. */
export function readSgdDialogues(dir: string): SgdSourceDialogue[] {
  return sgdDialoguesOf(readSgdFiles(dir));
}

/** The parsed dialogue files of the SGD release at `dir`, named `sgd/<split>/<file>` as `apps build-db` names them. */
export function readSgdFiles(
  dir: string,
): Array<{ split: string; path: string; file: string; json: unknown }> {
  return sgdDialogueFilesIn(dir).map(({ split, path }) => ({
    split,
    path,
    file: `sgd/${split}/${basename(path)}`,
    json: readJsonFile(path),
  }));
}

/** Every dialogue of the files; a malformed dialogue names its file and index. */
export function sgdDialoguesOf(files: ReturnType<typeof readSgdFiles>): SgdSourceDialogue[] {
  const out: SgdSourceDialogue[] = [];
  for (const { split, path, json } of files) {
    if (!Array.isArray(json))
      throw new ApiaryError('INPUT_INVALID', `${path}: not an array of SGD dialogues`);
    json.forEach((raw, i) => {
      const d = parseWith(DialogueSchema, raw, { file: path, record: i });
      const calls: SgdCall[] = [];
      d.turns.forEach((t, turn) => {
        for (const f of t.frames)
          if (f.service_call)
            calls.push({
              turn,
              service: f.service,
              intent: f.service_call.method,
              params: f.service_call.parameters,
              results: f.service_results ?? [],
            });
      });
      out.push({
        id: `${split}:${d.dialogue_id}`,
        services: d.services,
        turns: d.turns.map((t) => ({ speaker: t.speaker, utterance: t.utterance })),
        calls,
      });
    });
  }
  return out;
}
