import type { BenchmarkPlugin, PluginRetrieval } from '../plugins/index.js';

/**
 * The words core commands show for the plugins they serve, composed from the plugins' manifests
 * (plain data: nothing is loaded). The root help (command-list.ts) and each command's own
 * registration read the same functions, so the two always agree.
 */

/** `apiary eval`: the base sentence, then one sentence per plugin that adds one. */
export function evalDescription(plugins: readonly BenchmarkPlugin[]): string {
  const notes = plugins.flatMap((p) => (p.help?.eval ? [p.help.eval] : []));
  return [
    'run a registered task end to end (resumable JSONL results); `apiary tasks` lists tasks, solvers and options',
    'Without a model a task runs its no-model solver (a no-LLM baseline)',
    ...notes,
  ].join('. ');
}

/** Plan text formats besides JSON, in help (`MetaBench call-list text`). */
const planFormatNames = (plugins: readonly BenchmarkPlugin[]): string[] =>
  plugins.flatMap((p) => (p.planFormats ?? []).map((f) => f.name));

export function planDescription(plugins: readonly BenchmarkPlugin[]): string {
  return `validate and inspect plan graphs (${['JSON', ...planFormatNames(plugins)].join(' or ')})`;
}

/** `plan file (.json, or …)`: what a plan file may hold. */
export function planFileHelp(plugins: readonly BenchmarkPlugin[], formats: 'name' | 'example'): string {
  const texts = plugins.flatMap((p) =>
    (p.planFormats ?? []).map((f) => (formats === 'name' ? f.name : f.example)),
  );
  return `plan file (${['.json', ...texts].join(', or ')})`;
}

/** The simulated apps of the first plugin that has some (what `apiary run` executes against). */
export const simulatedApps = (plugins: readonly BenchmarkPlugin[]) => plugins.find((p) => p.apps)?.apps;

export function runDescription(plugins: readonly BenchmarkPlugin[]): string {
  const apps = simulatedApps(plugins);
  return `execute a plan against the simulated apps${apps ? ` (${apps.label})` : ''}: parallel, permission-checked, traced`;
}

export function scoreDescription(plugins: readonly BenchmarkPlugin[]): string {
  const notes = plugins.flatMap((p) =>
    (p.scorers ?? []).flatMap((s) => (s.help.summary ? [`${s.task}: ${s.help.summary}`] : [])),
  );
  return `re-score saved predictions without calling a model${notes.length ? ` (${notes.join('; ')})` : ''}`;
}

/** Datasets of `apiary retrieve`, the default of `retrieve <use>` first. */
export function retrievalDatasets(
  plugins: readonly BenchmarkPlugin[],
  use?: 'eval' | 'index' | 'query',
): PluginRetrieval[] {
  const all = plugins.flatMap((p) => p.retrieval ?? []);
  if (!use) return all;
  return [
    ...all.filter((r) => r.defaultOf?.includes(use)),
    ...all.filter((r) => !r.defaultOf?.includes(use)),
  ];
}

export function retrieveDescription(plugins: readonly BenchmarkPlugin[]): string {
  const labels = retrievalDatasets(plugins, 'eval').map((r) => r.label);
  return `API retrieval: evaluate retrievers${labels.length ? ` on ${labels.join('/')}` : ''}, train one, query a catalog`;
}

/** Executable tool sets, in plugin order. */
export const toolsets = (plugins: readonly BenchmarkPlugin[]) => plugins.flatMap((p) => p.toolsets ?? []);

/** `GTA's`, `GTA's and X's`: whose tools `apiary tools` lists. */
const owners = (plugins: readonly BenchmarkPlugin[]) =>
  toolsets(plugins)
    .map((t) => `${t.label}'s`)
    .join(' and ');

export function toolsDescription(plugins: readonly BenchmarkPlugin[]): string {
  const whose = owners(plugins);
  return `${whose ? `${whose} executable tools` : 'executable tools'}: list them, call one by hand`;
}
