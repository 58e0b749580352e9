import type { AppHandler } from '../../../apps/index.js';
import { ApiaryError, NotFoundError } from '../../../shared/index.js';
import type { ModelEndpointFlags } from '../../../tools/index.js';
import {
  type ExecutableTool,
  recordedHandler,
  type ToolRecording,
  ToolUnavailableError,
  toolHandler,
} from '../../../tools/index.js';
import { GTA_TOOL_CATEGORIES } from '../catalog.js';
import { addTextTool } from './add-text.js';
import { calculatorTool } from './calculator.js';
import { drawBoxTool } from './draw-box.js';
import { imageGenToolsFromEnv } from './image-gen.js';
import { type OcrToolOptions, ocrTool } from './ocr.js';
import { plotTool } from './plot.js';
import { googleSearchTool, type SearchProviderFlags, searchProviderFromEnv } from './search.js';
import { type PythonToolOptions, solverTool } from './solver.js';
import { visionToolsFromEnv } from './vision.js';

/** GTA's 14 tool names, as `toolmeta.json` (and the catalog built from it) names them. */
export const GTA_TOOL_NAMES: readonly string[] = Object.keys(GTA_TOOL_CATEGORIES);

/** What the tools need from the user; each part is optional, a tool without its part says so. */
export interface GtaToolsConfig {
  ocr?: OcrToolOptions;
  /** Solver's and Plot's Python sandbox (pass `sandbox` to share one between them). */
  python?: PythonToolOptions;
  /** GoogleSearch's provider (`--search-corpus`, `--search-provider`). */
  search?: SearchProviderFlags;
  /** The vision-language endpoint of TextToBbox, CountGivenObject, ImageDescription, … */
  vision?: ModelEndpointFlags;
  /** The images endpoint of TextToImage and ImageStylization. */
  image?: ModelEndpointFlags;
  /** Where endpoints and keys are read when no flag gives them (default `process.env`). */
  env?: Record<string, string | undefined>;
}

const envOf = (config: GtaToolsConfig) => config.env ?? process.env;

/** One tool of a family built together (the vision tools share one client). */
function pick(tools: ExecutableTool[], name: string): ExecutableTool {
  const tool = tools.find((t) => t.name === name);
  if (!tool) throw new ApiaryError('TOOL_FAILED', `internal: tool family lacks ${name}`);
  return tool;
}
const vision = (config: GtaToolsConfig, name: string) =>
  pick(visionToolsFromEnv(envOf(config), config.vision), name);
const imageGen = (config: GtaToolsConfig, name: string) =>
  pick(imageGenToolsFromEnv(envOf(config), config.image), name);

/** How each tool is built from the user's configuration. */
const BUILDERS: Readonly<Record<string, (config: GtaToolsConfig) => ExecutableTool>> = {
  OCR: (config) => ocrTool(config.ocr),
  Calculator: () => calculatorTool(),
  DrawBox: () => drawBoxTool(),
  AddText: () => addTextTool(),
  Solver: (config) => solverTool(config.python),
  Plot: (config) => plotTool(config.python),
  GoogleSearch: (config) =>
    googleSearchTool({ provider: searchProviderFromEnv(envOf(config), config.search) }),
  TextToBbox: (config) => vision(config, 'TextToBbox'),
  CountGivenObject: (config) => vision(config, 'CountGivenObject'),
  ImageDescription: (config) => vision(config, 'ImageDescription'),
  RegionAttributeDescription: (config) => vision(config, 'RegionAttributeDescription'),
  MathOCR: (config) => vision(config, 'MathOCR'),
  TextToImage: (config) => imageGen(config, 'TextToImage'),
  ImageStylization: (config) => imageGen(config, 'ImageStylization'),
};

/** A tool this build cannot run: listed, callable, and every call says why it is unavailable. */
function unavailableTool(name: string, reason: string): ExecutableTool {
  return {
    name,
    unavailable: () => reason,
    async run() {
      throw new ToolUnavailableError(name, reason);
    },
  };
}

const NOT_BUILT = 'not part of this build of Apiary yet';

function checkName(name: string): void {
  if (!GTA_TOOL_NAMES.includes(name)) throw new NotFoundError('GTA tool', name, GTA_TOOL_NAMES);
}

/**
 * The executable GTA tools by name, in toolmeta order (all 14 unless `names` picks some); a tool
 * that cannot run here is present and reports why through `unavailable()`. A name that is not a
 * GTA tool is a `NOT_FOUND` error.
 */
export function gtaTools(
  config: GtaToolsConfig = {},
  names?: readonly string[],
): Map<string, ExecutableTool> {
  for (const name of names ?? []) checkName(name);
  const tools = new Map<string, ExecutableTool>();
  for (const name of names ?? GTA_TOOL_NAMES) {
    const build = BUILDERS[name];
    tools.set(name, build ? build(config) : unavailableTool(name, NOT_BUILT));
  }
  return tools;
}

/** One tool of a set, or `NOT_FOUND` naming the GTA tools. */
export function gtaTool(tools: ReadonlyMap<string, ExecutableTool>, name: string): ExecutableTool {
  checkName(name);
  const tool = tools.get(name);
  if (!tool) throw new NotFoundError('tool in this set', name, [...tools.keys()]);
  return tool;
}

/** `ready`, or what to configure or install before the tool can run. */
export function toolStatus(tool: ExecutableTool): { ready: true } | { ready: false; reason: string } {
  const reason = tool.unavailable?.();
  return reason === undefined ? { ready: true } : { ready: false, reason };
}

export interface GtaToolHandlersOptions {
  /** Where tools write their output files (images). */
  outputDir: string;
  /**
   * What the tools' file arguments may name besides `outputDir` (folders or single files); `[]`
   * for nothing more. See `ToolHandlerOptions.readable`.
   */
  readable: readonly string[];
  /** Record or replay every call through this recording. */
  recording?: ToolRecording;
}

/** The tools as app handlers for `dispatchCall` (owner `tool:<name>`, API `<name>.<name>`). */
export function gtaToolHandlers(
  tools: ReadonlyMap<string, ExecutableTool> | Iterable<ExecutableTool>,
  opts: GtaToolHandlersOptions,
): AppHandler[] {
  const list = tools instanceof Map ? [...tools.values()] : [...(tools as Iterable<ExecutableTool>)];
  return list.map((tool) => {
    const handler = toolHandler(tool, { outputDir: opts.outputDir, readable: opts.readable });
    return opts.recording ? recordedHandler(handler, opts.recording, { outputDir: opts.outputDir }) : handler;
  });
}

/** Ends every tool's worker or process; errors of one tool do not stop the others. */
export async function disposeTools(
  tools: ReadonlyMap<string, ExecutableTool> | Iterable<ExecutableTool>,
): Promise<void> {
  const list = tools instanceof Map ? [...tools.values()] : [...(tools as Iterable<ExecutableTool>)];
  const results = await Promise.allSettled(list.map((t) => t.dispose?.()));
  const failed = results.find((r): r is PromiseRejectedResult => r.status === 'rejected');
  if (failed)
    throw new ApiaryError('TOOL_FAILED', `disposing tools failed: ${String(failed.reason)}`, {
      cause: failed.reason,
    });
}
