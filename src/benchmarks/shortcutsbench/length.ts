import { ApiaryError } from '../../shared/index.js';
import { CONTROL_FLOW_IDS, FILTER_IDS } from './actions.js';
import { isJsonObject, type Json, type JsonObject, LosslessNumber } from './json-value.js';
import { pyEquals } from './python-values.js';

/** The identifier and parameters of a raw action (undefined id / empty params where missing). */
export function actionParts(a: Json | undefined): { id: string | undefined; params: JsonObject } {
  if (!isJsonObject(a)) return { id: undefined, params: {} };
  const id = a.WFWorkflowActionIdentifier;
  const params = a.WFWorkflowActionParameters;
  return { id: typeof id === 'string' ? id : undefined, params: isJsonObject(params) ? params : {} };
}

const END_MODE = new LosslessNumber('2');
/** `mode == 2` in Python (an int 2, a float 2.0 or True+1 all qualify; a string does not). */
const isEndMode = (v: Json | undefined) => v !== undefined && pyEquals(v, END_MODE);

/** Longest-branch length plus 1-based top-level positions, index → pos (docs/shortcutsbench.md §6.1/§6.3). */
export interface LengthResult {
  length: number;
  positions: Map<number, number>;
}

/**
 * `LEN(actions)` of docs/shortcutsbench.md §6.1: an if/menu counts as its longest branch, a loop as its body,
 * markers, comments and alerts 0, every other action 1. A control-flow action without `GroupingIdentifier` or
 * `WFControlFlowMode` is an error (upstream crashes on it).
 */
export function shortcutLength(actions: readonly Json[]): LengthResult {
  const positions = new Map<number, number>();
  const length = lengthOf(actions, 0, actions.length, positions);
  return { length, positions };
}

function lengthOf(all: readonly Json[], from: number, to: number, positions?: Map<number, number>): number {
  let total = 0;
  let i = from;
  while (i < to) {
    const { id, params } = actionParts(all[i]);
    if (id !== undefined && CONTROL_FLOW_IDS.has(id)) {
      const group = params.GroupingIdentifier;
      const mode = params.WFControlFlowMode;
      if (group === undefined || mode === undefined)
        throw new ApiaryError(
          'INPUT_INVALID',
          `action ${i} (${id}) has no ${group === undefined ? 'GroupingIdentifier' : 'WFControlFlowMode'} (the official scorer crashes on it)`,
        );
      if (isEndMode(mode)) {
        i++;
        continue;
      }
      const marks = [i];
      for (let j = i + 1; j < to; j++) {
        const p = actionParts(all[j]).params;
        if (p.GroupingIdentifier !== undefined && pyEquals(p.GroupingIdentifier, group)) {
          marks.push(j);
          if (isEndMode(p.WFControlFlowMode)) break;
        }
      }
      if (marks.length === 1) {
        i++;
        continue;
      }
      positions?.set(i, total + 1);
      let longest = 0;
      for (let k = 0; k + 1 < marks.length; k++)
        longest = Math.max(longest, lengthOf(all, marks[k]! + 1, marks[k + 1]!));
      total += longest;
      i = marks[marks.length - 1]! + 1;
    } else if (id !== undefined && FILTER_IDS.has(id)) i++;
    else {
      total++;
      positions?.set(i, total);
      i++;
    }
  }
  return total;
}

export type Level = 1 | 2 | 3 | 4;
export const LEVELS: readonly Level[] = [1, 2, 3, 4];

/** docs/shortcutsbench.md §6.2: L1 ≤ 1, L2 ≤ 5, L3 ≤ 15, L4 otherwise (the benchmark keeps LEN ≤ 30). */
export function levelOf(length: number): Level {
  if (length <= 1) return 1;
  if (length <= 5) return 2;
  if (length <= 15) return 3;
  return 4;
}
