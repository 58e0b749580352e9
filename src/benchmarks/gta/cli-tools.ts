import type { OpenedToolset, ToolsetRuntime } from '../../plugins/index.js';
import { GTA_TOOL_CATEGORIES } from './catalog.js';
import {
  disposeTools,
  GTA_TOOL_NAMES,
  type GtaToolsConfig,
  gtaTool,
  gtaToolHandlers,
  gtaTools,
  toolStatus,
} from './tools/registry.js';

/** GTA's 14 tools for `apiary tools`, `apiary ask --catalog gta` and `apiary mcp serve --catalog gta`. */
export const gtaToolset: ToolsetRuntime = {
  list() {
    const set = gtaTools();
    return GTA_TOOL_NAMES.map((name) => {
      const status = toolStatus(gtaTool(set, name));
      return {
        name,
        category: GTA_TOOL_CATEGORIES[name] ?? 'none',
        status: status.ready ? 'ready' : status.reason,
      };
    });
  },
  open(config?: unknown, names?: readonly string[]): OpenedToolset {
    // config: the GtaToolsConfig tool-flags.ts builds from --vision-*, --image-*, --search-*
    const set = gtaTools(config as GtaToolsConfig | undefined, names);
    return {
      handlers: (options) => gtaToolHandlers(set, options),
      close: () => disposeTools(set),
    };
  },
};
