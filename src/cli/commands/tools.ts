import { mkdirSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join, resolve } from 'node:path';
import type { Command } from 'commander';
import { type Api, indexCatalog, loadCatalog } from '../../catalog/index.js';
import { appRegistry, dispatchCall } from '../../exec/index.js';
import type { PluginToolset } from '../../plugins/index.js';
import { ApiaryError } from '../../shared/index.js';
import { formatRecordingStats, ToolRecording } from '../../tools/index.js';
import { parseOutputPath, usageError } from '../options.js';
import { printJson, terminalText } from '../output.js';
import { toolsDescription, toolsets } from '../plugin-help.js';
import { cliPlugins } from '../program.js';
import { addToolFlags, type ToolFlags, toolSettingsFrom } from './tool-flags.js';

interface ListFlags {
  json?: boolean;
}
interface CallFlags extends ToolFlags {
  arg?: string[];
  outDir?: string;
  json?: boolean;
  data?: string;
}

const collect = (value: string, previous: string[] = []) => [...previous, value];

/**
 * `key=value` → typed by the tool's parameter (int, float, bool; image paths made absolute), and
 * the files they name: a person's own call may read exactly the files the person typed.
 */
function parseArgs(api: Api, pairs: readonly string[]): { args: Record<string, unknown>; files: string[] } {
  const args: Record<string, unknown> = {};
  const files: string[] = [];
  for (const pair of pairs) {
    const eq = pair.indexOf('=');
    if (eq <= 0) throw usageError('--arg', 'key=value', pair);
    const [key, text] = [pair.slice(0, eq), pair.slice(eq + 1)];
    const param = api.parameters.find((p) => p.name === key);
    if (!param)
      throw usageError(
        '--arg',
        `one of ${api.parameters.map((p) => p.name).join(', ')} for ${api.name}`,
        key,
      );
    const type = param.type.kind === 'primitive' ? param.type.name : 'string';
    if (type === 'integer' || type === 'number') {
      const n = Number(text);
      if (text.trim() === '' || !Number.isFinite(n) || (type === 'integer' && !Number.isInteger(n)))
        throw usageError(`--arg ${key}`, type === 'integer' ? 'an integer' : 'a number', text);
      args[key] = n;
    } else if (type === 'boolean') {
      if (!['true', 'false'].includes(text)) throw usageError(`--arg ${key}`, 'true or false', text);
      args[key] = text === 'true';
    } else if (type === 'image' || type === 'file') {
      args[key] = resolve(text);
      files.push(resolve(text));
    } else args[key] = text;
  }
  return { args, files };
}

/** `each GTA tool`, `each GTA or X tool`: what one tool of `apiary tools` is. */
const oneTool = (sets: readonly PluginToolset[]) => `${sets.map((t) => t.label).join(' or ')} tool`;

/**
 * The tool set holding `name`: the first set with a tool of that name, else the first set (whose
 * own NOT_FOUND error then lists its tools).
 */
async function toolsetOf(sets: readonly PluginToolset[], name: string) {
  if (!sets.length)
    throw new ApiaryError('NOT_FOUND', `no plugin provides executable tools (tool "${name}")`);
  const loaded = await Promise.all(sets.map(async (set) => ({ set, runtime: await set.load() })));
  return (
    (sets.length > 1 ? loaded.find((t) => t.runtime.list().some((tool) => tool.name === name)) : undefined) ??
    loaded[0]!
  );
}

export function registerToolsCommands(program: Command): void {
  const plugins = cliPlugins();
  const sets = toolsets(plugins);
  const tools = program.command('tools').description(toolsDescription(plugins));

  tools
    .command('list')
    .description(`each ${oneTool(sets)} with its category and whether it is ready (or what to configure)`)
    .option('--json', 'machine-readable output')
    .action(async (flags: ListFlags) => {
      const rows = (await Promise.all(sets.map(async (set) => (await set.load()).list()))).flat();
      if (flags.json) printJson(rows);
      else {
        const w = Math.max(...rows.map((r) => r.name.length));
        for (const r of rows)
          process.stdout.write(`${r.name.padEnd(w)}  ${r.category.padEnd(10)}  ${r.status}\n`);
      }
    });

  addToolFlags(
    tools
      .command('call')
      .description(
        `call one ${oneTool(sets)} through the executor and print its result (text, or paths of images)`,
      )
      .argument('<tool>', `tool name, e.g. ${sets.flatMap((t) => t.examples).join(', ')} (apiary tools list)`)
      .option('--arg <key=value>', 'an argument, repeatable; image arguments are file paths', collect)
      .option('--out-dir <dir>', 'folder for output images (default: a new temporary folder)')
      .option(
        '--data <dir>',
        `data folder with ${sets.map((t) => t.catalogFile).join(' or ')} (default: $APIARY_DATA, then bundled)`,
      )
      .option('--json', 'machine-readable output'),
  ).action(async (name: string, flags: CallFlags) => {
    // checked before the tool runs: a read-only folder is the command line's fault (USAGE), found
    // now rather than as the tool's failure once its code has run
    parseOutputPath('--out-dir', flags.outDir, 'directory');
    const settings = toolSettingsFrom(flags);
    const { set: toolset, runtime } = await toolsetOf(sets, name);
    const set = runtime.open(settings.config, [name]);
    const catalog = indexCatalog(loadCatalog(toolset.catalog, { dataDir: flags.data }));
    const api = catalog.api(name, name);
    if (!api) throw new ApiaryError('NOT_FOUND', `${basename(toolset.catalogFile)} has no tool "${name}"`);
    const { args, files } = parseArgs(api, flags.arg ?? []);
    const recording = settings.recording
      ? new ToolRecording(settings.recording.dir, settings.recording.mode)
      : undefined;
    const outputDir = flags.outDir ? resolve(flags.outDir) : mkdtempSync(join(tmpdir(), 'apiary-tools-'));
    mkdirSync(outputDir, { recursive: true });
    try {
      const apps = appRegistry(
        set.handlers({ outputDir, readable: files, ...(recording ? { recording } : {}) }),
      );
      const outcome = await dispatchCall({ app: name, api: name, args }, { catalog, apps });
      const stats = recording
        ? { recording: { dir: recording.dir, mode: recording.mode, ...recording.stats } }
        : {};
      if (flags.json) {
        printJson({
          tool: name,
          args,
          ...(outcome.ok ? { content: outcome.content } : { error: outcome.error }),
          ...stats,
        });
      } else if (outcome.ok) {
        // a tool's text comes from outside (a web page, a file, a model): shown, never obeyed
        for (const part of outcome.content) {
          if (part.type === 'text') process.stdout.write(`${terminalText(part.text)}\n`);
          else if (part.type === 'image' || part.type === 'file')
            process.stdout.write(`${terminalText(part.path)}\n`);
          else process.stdout.write(`${terminalText(JSON.stringify(part))}\n`);
        }
      }
      if (recording && !flags.json)
        process.stderr.write(`recording ${recording.dir}: ${formatRecordingStats(recording.stats)}\n`);
      if (!outcome.ok) {
        const code = outcome.error.code === 'INPUT_INVALID' ? 'USAGE' : 'TOOL_FAILED';
        throw new ApiaryError(code, outcome.error.message);
      }
    } finally {
      await set.close();
    }
  });
}
