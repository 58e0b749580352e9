import { existsSync } from 'node:fs';
import { join } from 'node:path';
import type { Catalog } from '../../catalog/index.js';
import {
  type ApiDemo,
  type ApiDemoOptions,
  buildApiDemos,
  buildTaskDemos,
  printAppPrefixedPlan,
  type TaskDemo,
  type TaskDemoOptions,
} from '../../retrieval/index.js';
import { agentSftStyle, compactSftStyle, type SftPromptStyle, type SftSource } from '../../sft/index.js';
import { NotFoundError } from '../../shared/index.js';
import {
  APPBENCH_CURRENT_DATE,
  type AppBenchCategory,
  type AppBenchSample,
  appBenchGoldPlan,
  loadAppBenchSamples,
} from './index.js';

/** The agents' prompt as AppBench's agents see it: they plan from 2019-03-01 (`--style appbench`). */
export const appBenchSftStyle: SftPromptStyle = {
  ...agentSftStyle,
  name: 'appbench',
  currentDate: APPBENCH_CURRENT_DATE,
};

/** The prompt styles `apiary sft build --style` offers. */
export const APPBENCH_SFT_STYLES = { appbench: appBenchSftStyle, compact: compactSftStyle } as const;

/** Gold tasks of AppBench samples: id `<category>-<index>`, the instruction and its repaired gold plan. */
function appBenchGoldTasks(samples: readonly AppBenchSample[], catalog: Catalog): SftSource[] {
  return samples.map((s) => ({
    id: s.id,
    category: s.category,
    instruction: s.record.input,
    plan: appBenchGoldPlan(s.record, catalog, s.id).plan,
  }));
}

export interface AppBenchLocation {
  dir: string;
  prefix: 'test' | 'dev';
}

/**
 * Finds AppBench files under `dir`: the folder itself or its `appbench/` subfolder, holding
 * `test_{cat}.json` (official, preferred) or `dev_{cat}.json` (shared dev subset).
 */
export function locateAppBench(dir: string): AppBenchLocation {
  for (const d of [dir, join(dir, 'appbench')])
    for (const prefix of ['test', 'dev'] as const)
      if (['ss', 'sm', 'ms', 'mm'].some((c) => existsSync(join(d, `${prefix}_${c}.json`))))
        return { dir: d, prefix };
  throw new NotFoundError('AppBench data folder', dir, [
    'a folder (or its appbench/ subfolder) with test_{ss,sm,ms,mm}.json or dev_{ss,sm,ms,mm}.json',
  ]);
}

export interface LoadAppBenchTasksOptions {
  categories?: readonly AppBenchCategory[];
  /** First N records of each category. */
  limit?: number;
}

/** Loads the gold tasks of every category file present under `dir` (see `locateAppBench`). */
export function loadAppBenchGoldTasks(
  dir: string,
  catalog: Catalog,
  opts: LoadAppBenchTasksOptions = {},
): SftSource[] {
  const loc = locateAppBench(dir);
  const categories =
    opts.categories ??
    (['ss', 'sm', 'ms', 'mm'] as const).filter((c) => existsSync(join(loc.dir, `${loc.prefix}_${c}.json`)));
  const samples = loadAppBenchSamples(loc.dir, { categories, prefix: loc.prefix, limit: opts.limit });
  return appBenchGoldTasks(samples, catalog);
}

export interface DemoKnowledgeBase {
  taskDemos: TaskDemo[];
  apiDemos: ApiDemo[];
}

/**
 * The Demo Selector's knowledge base from AppBench gold tasks: one task demo per task and one
 * API demo per catalog API (gold steps first, then a synthetic call with placeholders).
 * `exclude` leaves instructions out of both levels; the selector also skips the query itself.
 * Replies name calls `App_api` (`printAppPrefixedPlan`), the form the AppBench agents' prompt
 * asks for, unless `printReply` says otherwise.
 */
export function appBenchDemoKnowledgeBase(
  tasks: readonly SftSource[],
  catalog: Catalog,
  opts: TaskDemoOptions & ApiDemoOptions = {},
): DemoKnowledgeBase {
  const withPrint = { printReply: printAppPrefixedPlan, ...opts };
  return {
    taskDemos: buildTaskDemos(tasks, catalog, withPrint),
    apiDemos: buildApiDemos(catalog, tasks, withPrint),
  };
}
