import { attachmentValue, LEGACY_EXTENSION_INPUT } from './actions.js';
import type { Json } from './json-value.js';
import { pyEquals, pyTruthy } from './python-values.js';

export type ReferenceOutcome = 'correct' | 'format_error' | 'value_error';

/**
 * The official `judge_ref` (docs/shortcutsbench.md §9.3): the prediction must be `{"Value": {...}}` with the
 * gold's `Type`; for ActionOutput, when both sides carry both UUID and name either match suffices, else
 * whichever pair is present must match; other types need only the same `Type`.
 */
export function judgeReferenceOfficial(gold: Json, pred: Json): ReferenceOutcome {
  const g = attachmentValue(gold);
  const q = attachmentValue(pred);
  if (!q || !g) return 'format_error';
  if (g.Type === undefined || q.Type === undefined || !pyEquals(g.Type, q.Type)) return 'format_error';
  if (g.Type !== 'ActionOutput') return 'correct';
  const uuids = pyTruthy(g.OutputUUID) && pyTruthy(q.OutputUUID);
  const names = pyTruthy(g.OutputName) && pyTruthy(q.OutputName);
  const sameUuid = uuids && pyEquals(g.OutputUUID!, q.OutputUUID!);
  const sameName = names && pyEquals(g.OutputName!, q.OutputName!);
  if (uuids && names) return sameUuid || sameName ? 'correct' : 'value_error';
  if (uuids) return sameUuid ? 'correct' : 'value_error';
  if (names) return sameName ? 'correct' : 'value_error';
  return 'value_error';
}

const systemType = (t: Json | undefined) => (t === LEGACY_EXTENSION_INPUT ? 'ExtensionInput' : t);

/**
 * Corrected `judge_ref`: a UUID identifies the output, so when both sides carry one it decides
 * alone (two actions may share an output name); the legacy `Input` type equals `ExtensionInput`.
 */
export function judgeReferenceCorrected(gold: Json, pred: Json): ReferenceOutcome {
  const g = attachmentValue(gold);
  const q = attachmentValue(pred);
  if (!q || !g) return 'format_error';
  const gt = systemType(g.Type);
  const qt = systemType(q.Type);
  if (gt === undefined || qt === undefined || !pyEquals(gt, qt)) return 'format_error';
  if (gt !== 'ActionOutput') return 'correct';
  if (pyTruthy(g.OutputUUID) && pyTruthy(q.OutputUUID))
    return pyEquals(g.OutputUUID!, q.OutputUUID!) ? 'correct' : 'value_error';
  if (pyTruthy(g.OutputName) && pyTruthy(q.OutputName))
    return pyEquals(g.OutputName!, q.OutputName!) ? 'correct' : 'value_error';
  return 'value_error';
}
