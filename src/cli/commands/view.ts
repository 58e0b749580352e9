import { spawn } from 'node:child_process';
import type { Command } from 'commander';
import { defaultPluginRegistry } from '../../plugins/index.js';
import { ApiaryError } from '../../shared/index.js';
import { startViewer } from '../../viewer/index.js';
import { parseInteger } from '../options.js';

/** Where `apiary view` listens without `--port`. */
const DEFAULT_VIEW_PORT = 8642;

const LOOPBACK = new Set(['127.0.0.1', 'localhost', '::1']);

/** Opens a URL in the desktop's browser (best effort: a missing opener is only a note). */
function openInBrowser(url: string): void {
  const [cmd, args] =
    process.platform === 'darwin'
      ? ['open', [url]]
      : process.platform === 'win32'
        ? ['cmd', ['/c', 'start', '', url]]
        : ['xdg-open', [url]];
  const child = spawn(cmd, args as string[], { detached: true, stdio: 'ignore' });
  child.on('error', () => process.stderr.write(`note: could not start ${cmd}; open ${url} yourself\n`));
  child.unref();
}

async function viewRun(run: string, flags: { port?: string; host?: string; open?: boolean }): Promise<void> {
  const port = parseInteger('--port', flags.port, { min: 0, max: 65535 }) ?? DEFAULT_VIEW_PORT;
  const host = flags.host ?? '127.0.0.1';
  await defaultPluginRegistry.loadTasks(); // the viewer reads each sample's score through its task
  let viewer: Awaited<ReturnType<typeof startViewer>>;
  try {
    viewer = await startViewer(run, { host, port });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EADDRINUSE')
      throw new ApiaryError(
        'USAGE',
        `port ${port} is in use on ${host}; pick another with --port (0: any free port)`,
        {
          cause: error,
        },
      );
    throw error;
  }
  const { index } = viewer;
  if (!LOOPBACK.has(host))
    process.stderr.write(
      `warning: serving on ${host}: anyone who can reach it can read this run's prompts and outputs\n`,
    );
  if (index.truncatedTail) process.stderr.write('note: ignored a torn last line (interrupted run)\n');
  process.stdout.write(
    `viewing ${index.resultsFile} (${index.samples.length} records)\n${viewer.url}\npress Ctrl-C to stop\n`,
  );
  if (flags.open) openInBrowser(viewer.url);
  process.once('SIGINT', () => {
    void viewer.close().finally(() => process.exit(0));
  });
}

export function registerViewCommand(program: Command): void {
  program
    .command('view')
    .description("browse a run's samples and traces in a local web viewer (filters by score and error)")
    .argument('<run>', 'run folder (holding results.jsonl) or the results file itself')
    .option('--port <n>', `port to listen on (default ${DEFAULT_VIEW_PORT}; 0 picks a free one)`)
    .option('--host <host>', 'address to bind (default 127.0.0.1: this machine only)')
    .option('--open', 'open the viewer in the default browser')
    .action((run: string, flags: { port?: string; host?: string; open?: boolean }) => viewRun(run, flags));
}
