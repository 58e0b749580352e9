import { registerAppBenchTask } from '../benchmarks/appbench/register.js';
import { registerGtaTask } from '../benchmarks/gta/register.js';
import { registerShortcutsTask } from '../benchmarks/shortcutsbench/register.js';
import { registerToolBenchRetrievalTask } from '../benchmarks/toolbench/register.js';
import { defaultTaskRegistry, type TaskRegistry } from './registry.js';

/** Registers the tasks apiary ships with (once per registry; later calls do nothing). */
export function registerBuiltinTasks(registry: TaskRegistry = defaultTaskRegistry): TaskRegistry {
  if (!registry.has('appbench')) registerAppBenchTask(registry);
  if (!registry.has('gta')) registerGtaTask(registry);
  if (!registry.has('shortcuts')) registerShortcutsTask(registry);
  if (!registry.has('toolbench-retrieval')) registerToolBenchRetrievalTask(registry);
  return registry;
}
