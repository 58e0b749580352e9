import { resolve } from 'node:path';
import { parseList } from '../../cli/options.js';
import type { TaskEvalFlags } from '../../plugins/index.js';

/** `apiary eval shortcuts`'s own flags: the levels to run and a folder of the user's shortcuts. */
export const shortcutsEvalFlags: TaskEvalFlags = {
  flags: [
    {
      flags: '--levels <list>',
      description: 'shortcuts: comma-separated subset of the levels 1,2,3,4 (same as --option levels=…)',
      notForTask: (flag, task) =>
        `${flag} is a shortcuts flag; for ${task} use --option key=value (see apiary tasks)`,
      inEvalAll: 'refuse',
    },
    {
      flags: '--shortcuts <folder>',
      description:
        'shortcuts: your own .shortcut/.plist files, each with NAME.query.txt (--data then only needs the two API files)',
      notForTask: (flag, task) => `${flag} is a flag of the shortcuts task, not of ${task}`,
    },
  ],
  settings(given) {
    const { levels, shortcuts } = given as { levels?: string; shortcuts?: string };
    return {
      taskOptions: {
        ...(levels === undefined
          ? {}
          : { levels: parseList('--levels', levels, ['1', '2', '3', '4']).map(Number) }),
        ...(shortcuts === undefined ? {} : { shortcuts: resolve(shortcuts) }),
      },
    };
  },
};
