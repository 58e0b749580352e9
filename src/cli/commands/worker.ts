import type { Command } from 'commander';
import { resolveQueueAuth, startQueueWorker } from '../../harness/index.js';
import { ApiaryError, registerSecret } from '../../shared/index.js';
import { parseInteger } from '../options.js';

interface WorkerFlags {
  queue: string;
  concurrency: string;
  data?: string;
  apiKeyEnv?: string;
  lockMs?: string;
  stalledMs?: string;
  baseUrl?: string;
  allowModule?: string[];
  queueSecretFile?: string;
  insecureNoAuth?: boolean;
}

const collect = (value: string, previous: string[] = []) => [...previous, value];

/** `apiary worker`: serves the runs announced on a Redis server until SIGINT/SIGTERM. */
export async function runWorkerCommand(flags: WorkerFlags): Promise<void> {
  const concurrency = parseInteger('--concurrency', flags.concurrency, { min: 1 }) ?? 4;
  const lockDurationMs = parseInteger('--lock-ms', flags.lockMs, { min: 100 });
  const stalledIntervalMs = parseInteger('--stalled-ms', flags.stalledMs, { min: 100 });
  const keyEnv = flags.apiKeyEnv ?? (process.env.APIARY_API_KEY ? 'APIARY_API_KEY' : 'OPENAI_API_KEY');
  const apiKey = process.env[keyEnv];
  registerSecret(apiKey);
  if (flags.apiKeyEnv && !apiKey)
    throw new ApiaryError('USAGE', `--api-key-env ${flags.apiKeyEnv}: that variable is not set`);
  const log = (line: string) => process.stderr.write(`worker: ${line}\n`);
  const auth = resolveQueueAuth({ secretFile: flags.queueSecretFile, insecure: flags.insecureNoAuth });
  if (auth.insecure)
    log(
      'warning: --insecure-no-auth: runs, jobs and results on this Redis are not authenticated; anyone who can write to it chooses what this worker runs',
    );
  const baseURL = flags.baseUrl ?? process.env.APIARY_BASE_URL;
  if (baseURL !== undefined) {
    try {
      new URL(baseURL);
    } catch {
      throw new ApiaryError(
        'USAGE',
        `--base-url ${baseURL}: not a URL (expected e.g. http://gpu-box:8000/v1)`,
      );
    }
  }
  const handle = await startQueueWorker({
    url: flags.queue,
    auth,
    allowModules: flags.allowModule ?? [],
    ...(baseURL !== undefined ? { baseURL } : {}),
    concurrency,
    ...(flags.data ? { dataDir: flags.data } : {}),
    ...(apiKey ? { apiKey } : {}),
    ...(lockDurationMs !== undefined ? { lockDurationMs } : {}),
    ...(stalledIntervalMs !== undefined ? { stalledIntervalMs } : {}),
    log,
  });
  log(`waiting for runs on ${flags.queue} (concurrency ${concurrency}; Ctrl-C to stop)`);
  await new Promise<void>((resolve) => {
    const stop = () => {
      process.off('SIGINT', stop);
      process.off('SIGTERM', stop);
      log('stopping: finishing the samples in flight');
      void handle.close().then(resolve);
    };
    process.on('SIGINT', stop);
    process.on('SIGTERM', stop);
  });
  log(`stopped after ${handle.done} samples`);
}

export function registerWorkerCommands(program: Command): void {
  program
    .command('worker')
    .description(
      'solve and score the samples of distributed evals (`apiary eval <task> --queue URL`) from a Redis server; run any number, on any machines',
    )
    .requiredOption('--queue <redis-url>', 'Redis server of the runs, e.g. redis://10.0.0.5:6379')
    .option('--concurrency <n>', 'samples in flight in this process', '4')
    .option('--data <dir>', "data folder on this machine (default: the coordinator's path)")
    .option(
      '--api-key-env <name>',
      'environment variable holding the API key (default APIARY_API_KEY, else OPENAI_API_KEY)',
    )
    .option(
      '--lock-ms <ms>',
      "job lock; a killed worker's samples are retried after it expires (default 30000)",
    )
    .option('--stalled-ms <ms>', 'how often stalled jobs are looked for (default 30000)')
    .option(
      '--base-url <url>',
      'the model endpoint this worker serves runs for (or APIARY_BASE_URL); runs announcing another are refused, so the key goes only there',
    )
    .option(
      '--allow-module <path>',
      'a local model or setup module announced runs may import (repeatable); any other module is refused, never imported',
      collect,
    )
    .option(
      '--queue-secret-file <file>',
      'file holding the secret shared with the coordinator (default: APIARY_QUEUE_SECRET)',
    )
    .option(
      '--insecure-no-auth',
      'serve runs without a shared secret: anyone who can write to the Redis server chooses what runs (trusted networks only)',
    )
    .action((flags: WorkerFlags) => runWorkerCommand(flags));
}
