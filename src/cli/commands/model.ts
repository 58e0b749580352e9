import type { Command } from 'commander';
import { createLocalModel, resolveModelSetup, startModelServer } from '../../models/index.js';
import { ApiaryError } from '../../shared/index.js';
import { addLocalModelOptions, type LocalModelFlags, localModelOptions } from '../local-model-options.js';
import { parseInteger } from '../options.js';

/** Where `apiary model serve` listens without `--port` (llama.cpp server's default). */
const DEFAULT_MODEL_PORT = 8080;
const LOOPBACK = new Set(['127.0.0.1', 'localhost', '::1']);

interface ServeFlags extends LocalModelFlags {
  port?: string;
  host: string;
}

async function serveModel(model: string, flags: ServeFlags): Promise<void> {
  if (!model.startsWith('gguf:'))
    throw new ApiaryError(
      'USAGE',
      `apiary model serve serves a local GGUF file: pass gguf:PATH (got "${model}")`,
    );
  const port = parseInteger('--port', flags.port, { min: 0, max: 65535 }) ?? DEFAULT_MODEL_PORT;
  const setup = resolveModelSetup(
    { model, local: localModelOptions(flags) },
    { env: {}, cwd: process.cwd(), exists: () => false },
  );
  const local = createLocalModel(setup!.local!);
  let server: Awaited<ReturnType<typeof startModelServer>>;
  try {
    server = await startModelServer(local, {
      host: flags.host,
      port,
      log: (line) => process.stderr.write(`${line}\n`),
    });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EADDRINUSE')
      throw new ApiaryError(
        'USAGE',
        `port ${port} is in use on ${flags.host}; pick another with --port (0: any free port)`,
        {
          cause: error,
        },
      );
    throw error;
  }
  if (!LOOPBACK.has(flags.host))
    process.stderr.write(
      `warning: serving on ${flags.host} without a key: anyone who can reach it can use the model\n`,
    );
  process.stdout.write(
    `serving ${setup!.local!.path} at ${server.url} (OpenAI-compatible, model name ${server.model})\n` +
      `use it with: apiary eval <task> --base-url ${server.url} --model ${server.model}\npress Ctrl-C to stop\n`,
  );
  process.once('SIGINT', () => {
    void server.close().finally(() => process.exit(0));
  });
}

export function registerModelCommands(program: Command): void {
  const model = program
    .command('model')
    .description('local models: serve a GGUF file as an OpenAI-compatible endpoint');
  addLocalModelOptions(
    model
      .command('serve')
      .description(
        'serve gguf:PATH at /v1/chat/completions (tools, tool_choice, response_format json_schema, stream) and /v1/models; ' +
          'one request at a time, queued (the x-apiary-queue-depth header and GET /v1/queue show the queue)',
      )
      .argument('<model>', 'gguf:PATH of a GGUF file (never downloaded)')
      .option('--port <n>', `port to listen on (default ${DEFAULT_MODEL_PORT}; 0 picks a free one)`)
      .option('--host <host>', 'address to bind (default 127.0.0.1: this machine only)', '127.0.0.1'),
  ).action((m: string, flags: ServeFlags) => serveModel(m, flags));
}
