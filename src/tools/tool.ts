import type { AppCallContext, AppHandler, ContentPart } from '../apps/index.js';
import { ApiaryError } from '../shared/index.js';
import { type ReadablePaths, readablePaths } from './file-access.js';

/**
 * An executable tool: one function a model can call (GTA's OCR, Calculator, Solver, …). Each tool
 * runs as its own app (`appId` = tool name, owner `tool:<name>`, API `<name>.<name>`, as the GTA
 * catalog declares it), so `dispatchCall` validates, isolates and times it like any other API.
 */
export interface ExecutableTool {
  /** The tool's name as the catalog and the model know it (e.g. `OCR`). */
  readonly name: string;
  /**
   * Why the tool cannot run here (a missing endpoint, key or Debian package), as a sentence that
   * says what to configure or install; `undefined` when it is ready.
   */
  unavailable?(): string | undefined;
  /** Runs one call on validated arguments; throws an ApiaryError (code `TOOL_FAILED`) on failure. */
  run(args: Record<string, unknown>, ctx: ToolRunContext): Promise<ContentPart[]>;
  /** Frees what the tool keeps between calls (a worker, a process); the tool may start again later. */
  dispose?(): Promise<void>;
}

export interface ToolRunContext {
  /** A folder this call may write its output files into (images it draws, plots). */
  outputDir: string;
  /**
   * The folders and files this call may read through its file arguments (real paths; check each
   * argument with `grantedPath`). Arguments come from a model or an MCP client: never trust them.
   */
  readable: ReadablePaths;
  signal?: AbortSignal;
}

export interface ToolHandlerOptions {
  /** Where output files go; one folder per run or sample (created by the caller). */
  outputDir: string;
  /**
   * What the tool's file arguments may name besides `outputDir` (always readable: a tool reads the
   * images earlier calls drew): the folders the user granted (`--allow-dir`), a sample's input
   * files, the paths a person typed. `[]` for none: required, so no caller forgets to decide.
   */
  readable: readonly string[];
}

/**
 * A tool that is not configured here (code `TOOL_FAILED`). Its own class so a recording never
 * stores it as the tool's answer: configured later, the tool must run.
 */
export class ToolUnavailableError extends ApiaryError {
  constructor(tool: string, reason: string) {
    super('TOOL_FAILED', `${tool} is not available: ${reason}`);
  }
}

/** A tool as the app handler `dispatchCall` runs: the tool's own identity, results as content parts. */
export function toolHandler(tool: ExecutableTool, opts: ToolHandlerOptions): AppHandler {
  const readable = readablePaths([opts.outputDir, ...opts.readable]);
  return {
    appId: tool.name,
    owner: `tool:${tool.name}`,
    async call(api: string, args: Record<string, unknown>, ctx: AppCallContext) {
      if (api !== tool.name) throw new ApiaryError('TOOL_FAILED', `tool ${tool.name} has no API "${api}"`);
      const missing = tool.unavailable?.();
      if (missing) throw new ToolUnavailableError(tool.name, missing);
      const content = await tool.run(args, {
        outputDir: opts.outputDir,
        readable,
        ...(ctx.signal ? { signal: ctx.signal } : {}),
      });
      return { content };
    },
  };
}
