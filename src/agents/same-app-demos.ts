import type { Catalog } from '../catalog/index.js';
import { ApiaryError } from '../shared/index.js';
import { createApiSelector } from './baseline/select-apis.js';
import type { AgentDemo } from './llm-agent-options.js';

/** A solved example: instruction, gold reply in AppBench line format, and the Apps it uses. */
export interface DemoPoolItem {
  id?: string;
  instruction: string;
  reply: string;
  apps: readonly string[];
}

export interface SameAppDemosOptions {
  /** Likely Apps of an instruction; default: the baseline's lexical API selection over `catalog`. */
  appsOf?: (instruction: string) => string[];
  catalog?: Catalog;
}

/**
 * k-shot demos "from the same App", as the AppBench paper selects few-shot examples (its train
 * split is not released, so the pool is whatever solved items the caller has, e.g. dev records).
 * The sample's gold Apps are unknown to the agent, so its likely Apps are estimated
 * (`appsOf`, default: the baseline's BM25 App guess). Candidates share at least one likely App;
 * they are ranked by the number of shared Apps (more first), then by how close their App count
 * is to the guess, then by pool order. An item whose instruction equals the instruction being
 * solved is never used. Fewer than k demos are returned when fewer candidates share an App.
 */
export function sameAppDemos(
  pool: readonly DemoPoolItem[],
  k: number,
  opts: SameAppDemosOptions = {},
): (instruction: string) => Promise<AgentDemo[]> {
  let appsOf = opts.appsOf;
  if (!appsOf) {
    if (!opts.catalog) throw new ApiaryError('USAGE', 'sameAppDemos needs either appsOf or a catalog');
    const selector = createApiSelector(opts.catalog);
    appsOf = (instruction) => selector.apps(instruction);
  }
  const guess = appsOf;
  return async (instruction) => {
    if (k <= 0) return [];
    const likely = new Set(guess(instruction));
    const self = instruction.trim();
    return pool
      .map((item, order) => {
        const shared = item.apps.filter((a, i) => likely.has(a) && item.apps.indexOf(a) === i).length;
        const distinct = new Set(item.apps).size;
        return { item, order, shared, gap: Math.abs(distinct - likely.size) };
      })
      .filter((c) => c.shared > 0 && c.item.instruction.trim() !== self)
      .sort((a, b) => b.shared - a.shared || a.gap - b.gap || a.order - b.order)
      .slice(0, k)
      .map((c) => ({ instruction: c.item.instruction, reply: c.item.reply }));
  };
}
