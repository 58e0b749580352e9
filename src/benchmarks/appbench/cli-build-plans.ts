import { existsSync, mkdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { executableCatalog } from '../../cli/commands/mcp.js';
import { parseChoice, parseExistingFile, parseInteger, parseList } from '../../cli/options.js';
import { autoApprove, denyAll } from '../../exec/index.js';
import { createProgressReporter, progressModeFor } from '../../harness/index.js';
import { resolveModelSetup } from '../../models/index.js';
import type { DataBuilder } from '../../plugins/index.js';
import {
  ApiaryError,
  InputInvalidError,
  NotFoundError,
  readJsonFile,
  writeFileAtomic,
} from '../../shared/index.js';
import { APPBENCH_CATEGORIES, type AppBenchCategory, appBenchFileName } from './categories.js';
import { type InstructionOutcome, planInstruction, planRecord } from './plan-records.js';
import { type SampledPlan, sampleExecutablePlans, type ValuePool } from './plan-sampling.js';
import type { AppBenchRecord } from './record.js';

/**
 * `apiary data build plans --catalog C --out DIR`: AppBench-format records over any executable
 * catalog (docs/appbench.md, "Plans from your own catalog").
 */

interface BuildPlansFlags {
  catalog?: string;
  servers?: string;
  data?: string;
  db?: string;
  values?: string;
  limit?: string;
  maxCalls?: string;
  attempts?: string;
  approve?: string;
  grant?: string;
  model?: string;
  baseUrl?: string;
  apiKeyEnv?: string;
  retries?: string;
  seed?: string;
  out: string;
  overwrite?: boolean;
}

/** `--values FILE`: an object of key → value or list of values (strings, numbers, booleans). */
function readValuePool(file: string): ValuePool {
  const json = readJsonFile(file);
  if (!json || typeof json !== 'object' || Array.isArray(json))
    throw new InputInvalidError(
      { file },
      'expected a JSON object of "app.api.param" | "api.param" | "param" → values',
    );
  const pool = new Map<string, Array<string | number | boolean>>();
  for (const [key, value] of Object.entries(json as Record<string, unknown>)) {
    const list = Array.isArray(value) ? value : [value];
    for (const v of list)
      if (!['string', 'number', 'boolean'].includes(typeof v))
        throw new InputInvalidError({ file, record: key }, 'values are strings, numbers or booleans');
    pool.set(key, list as Array<string | number | boolean>);
  }
  return pool;
}

export const buildPlans: DataBuilder = async (given) => {
  const flags = given as unknown as BuildPlansFlags;
  const perCategory = parseInteger('--limit', flags.limit ?? '20', { min: 1 });
  const maxCalls = parseInteger('--max-calls', flags.maxCalls ?? '3', { min: 1 });
  const attempts = parseInteger('--attempts', flags.attempts ?? String(50 * perCategory), { min: 1 });
  const retries = parseInteger('--retries', flags.retries ?? '2', { min: 0 });
  const seed = parseInteger('--seed', flags.seed ?? '0', { min: 0 });
  const approve = parseChoice('--approve', flags.approve ?? 'deny', ['auto', 'deny'] as const);
  const grant = parseList('--grant', flags.grant);
  const values = flags.values ? readValuePool(parseExistingFile('--values', flags.values)) : undefined;
  if (!flags.catalog && !flags.servers)
    throw new ApiaryError('USAGE', 'pass --catalog NAME|FILE or --servers FILE');
  const out = resolve(flags.out);
  if (
    !flags.overwrite &&
    existsSync(out) &&
    APPBENCH_CATEGORIES.some((c) => existsSync(join(out, appBenchFileName(c))))
  )
    throw new ApiaryError('USAGE', `${out} already holds AppBench files: pass --overwrite or another --out`);
  const setup = resolveModelSetup({ model: flags.model, baseURL: flags.baseUrl, apiKeyEnv: flags.apiKeyEnv });

  const executable = await executableCatalog({
    catalog: flags.catalog ?? '',
    ...(flags.data ? { data: flags.data } : {}),
    ...(flags.db ? { db: flags.db } : {}),
    ...(flags.servers ? { servers: flags.servers } : {}),
  });
  const { catalog } = executable;
  const unknown = grant?.filter((id) => !catalog.apps.some((a) => a.id === id)) ?? [];
  if (unknown.length) {
    await executable.close();
    throw new NotFoundError(
      'app in --grant',
      unknown.join(', '),
      catalog.apps.map((a) => a.id),
    );
  }
  const progress = createProgressReporter({ label: 'plans', mode: progressModeFor(process.stderr, false) });
  const started = performance.now();
  let sampled: Awaited<ReturnType<typeof sampleExecutablePlans>>;
  try {
    sampled = await sampleExecutablePlans({
      catalog,
      handlers: executable.handlers,
      approve: approve === 'auto' ? autoApprove : denyAll,
      transactional: approve === 'auto',
      ...(grant ? { grant } : {}),
      seed,
      perCategory,
      maxCalls,
      attemptsPerCategory: attempts,
      ...(values ? { values } : {}),
      onPlan: (done, total) => {
        const elapsedMs = performance.now() - started;
        const rate = done / Math.max(elapsedMs / 1000, 1e-3);
        progress.update({
          done,
          total,
          skipped: 0,
          errors: 0,
          elapsedMs,
          rate,
          etaMs: ((total - done) / rate) * 1000,
        });
      },
    });
  } finally {
    progress.stop();
    await executable.close();
  }

  const byCategory = new Map<AppBenchCategory, AppBenchRecord[]>();
  const entries: Array<{
    category: AppBenchCategory;
    index?: number;
    calls: string[];
    instruction: InstructionOutcome;
  }> = [];
  let rejected = 0;
  for (const [i, plan] of sampled.plans.entries()) {
    const instruction = await planInstruction(plan, i, {
      catalog,
      ...(setup ? { model: setup.model } : {}),
      seed,
      retries,
    }).catch((error: unknown) => {
      throw new ApiaryError(
        'MODEL_CALL_FAILED',
        `instruction of plan ${i + 1}: ${(error as Error).message}`,
        { cause: error },
      );
    });
    const record =
      instruction.instruction === undefined ? undefined : planRecord(plan, instruction.instruction);
    const list = byCategory.get(plan.category) ?? [];
    if (record) {
      list.push(record);
      byCategory.set(plan.category, list);
    } else rejected++;
    entries.push({
      category: plan.category,
      ...(record ? { index: list.length - 1 } : {}),
      calls: callsOf(plan),
      instruction,
    });
  }

  mkdirSync(out, { recursive: true });
  const counts: Record<string, number> = {};
  for (const c of APPBENCH_CATEGORIES) {
    const records = byCategory.get(c) ?? [];
    counts[c] = records.length;
    if (records.length)
      writeFileAtomic(join(out, appBenchFileName(c)), `${JSON.stringify(records, null, 1)}\n`);
  }
  writeFileAtomic(
    join(out, 'build.manifest.json'),
    `${JSON.stringify(
      {
        catalog: flags.servers ? `MCP servers of ${flags.servers}` : flags.catalog,
        executedOn: executable.source,
        seed,
        instructions: setup
          ? { source: 'model', model: setup.modelId, baseURL: setup.baseURL }
          : { source: 'templated (no model: each call and its values spelled out)' },
        counts,
        rejectedInstructions: rejected,
        sampling: sampled.stats,
        records: entries,
      },
      null,
      2,
    )}\n`,
  );
  const written = Object.values(counts).reduce((a, b) => a + b, 0);
  process.stdout.write(
    `${written} records (${APPBENCH_CATEGORIES.map((c) => `${c} ${counts[c]}`).join(', ')}) written to ${out}; ` +
      `${setup ? `instructions by ${setup.modelId}, ${rejected} rejected` : 'templated instructions (no model)'}; ` +
      `${Object.values(sampled.stats.attempts).reduce((a, b) => a + b, 0)} plans tried\n`,
  );
};

/** Each call as the record's call string, for the manifest. */
function callsOf(plan: SampledPlan): string[] {
  return planRecord(plan, '').output.api_results;
}
