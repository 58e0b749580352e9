import { TOOL_FLAG_OPTIONS, type ToolFlags, toolSettingsFrom } from '../../cli/commands/tool-flags.js';
import type { TaskEvalFlag, TaskEvalFlags } from '../../plugins/index.js';

const toolFlag = ([flags, description]: readonly [string, string]): TaskEvalFlag => ({
  flags,
  description,
  notForTask: (flag, task) => `${flag} configures GTA's tools: a flag of the gta task, not of ${task}`,
  inEvalAll: 'own',
});

/** `apiary eval gta`'s own flags: the mode and the tools' endpoints and recording. */
export const gtaEvalFlags: TaskEvalFlags = {
  flags: [
    {
      flags: '--mode <mode>',
      description: 'gta: step (gold history, dummy tools) | e2e (the real tools; default)',
      notForTask: (flag, task) => `${flag} is a flag of the gta task, not of ${task}`,
      inEvalAll: 'refuse',
    },
    ...TOOL_FLAG_OPTIONS.map(toolFlag),
  ],
  settings(given) {
    const { mode } = given as { mode?: string };
    return {
      taskOptions: mode === undefined ? {} : { mode },
      tools: toolSettingsFrom(given as ToolFlags),
    };
  },
};
