import type { GoldPlanSource } from '../../plugins/index.js';
import { APPBENCH_SFT_STYLES, appBenchDemoKnowledgeBase, loadAppBenchGoldTasks } from './sft-source.js';
import { APPBENCH_CURRENT_DATE } from './task.js';

/** AppBench's gold plans as SFT data (`apiary sft build`) and worked examples (`apiary ask --demos`). */
export const appBenchGoldPlans: GoldPlanSource = {
  currentDate: APPBENCH_CURRENT_DATE,
  styles: APPBENCH_SFT_STYLES,
  tasks: (dir, catalog) => loadAppBenchGoldTasks(dir, catalog),
  demoKnowledgeBase: (tasks, catalog) => appBenchDemoKnowledgeBase(tasks, catalog),
};
