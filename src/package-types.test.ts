import { execFile } from 'node:child_process';
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';

/**
 * The published types work for a consumer: the package is built (`tsconfig.build.json`, into a
 * temporary copy so a stale `dist/` cannot hide a problem), installed the way npm would (its
 * production dependencies only — no devDependencies such as `@types/better-sqlite3`), and a strict
 * NodeNext project with `skipLibCheck: false` that imports `apiary` and its subpaths must compile.
 */
const exec = promisify(execFile);
const repo = join(import.meta.dirname, '..');
const tsc = join(repo, 'node_modules', 'typescript', 'bin', 'tsc');
const work = mkdtempSync(join(tmpdir(), 'apiary-consumer-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));

const link = (target: string, path: string) => {
  mkdirSync(join(path, '..'), { recursive: true });
  symlinkSync(target, path, 'dir');
};

/** The package as installed: package.json, the built dist/ and links to its runtime dependencies. */
async function installPackage(): Promise<string> {
  const pkgDir = join(work, 'apiary');
  await exec(process.execPath, [
    tsc,
    '-p',
    join(repo, 'tsconfig.build.json'),
    '--outDir',
    join(pkgDir, 'dist'),
  ]);
  const pkg = JSON.parse(readFileSync(join(repo, 'package.json'), 'utf8')) as {
    dependencies: Record<string, string>;
  };
  writeFileSync(join(pkgDir, 'package.json'), JSON.stringify(pkg));
  for (const dep of Object.keys(pkg.dependencies))
    link(join(repo, 'node_modules', dep), join(pkgDir, 'node_modules', dep));
  return pkgDir;
}

/** package.json `exports`: subpath → its built module and declarations. */
const EXPORTS = (
  JSON.parse(readFileSync(join(repo, 'package.json'), 'utf8')) as {
    exports: Record<string, { types: string; default: string }>;
  }
).exports;
const specifier = (sub: string) => (sub === '.' ? 'apiary' : `apiary/${sub.slice(2)}`);

const CONSUMER = `
import {
  analyzePlan,
  ApiaryError,
  type Catalog,
  loadCatalog,
  parsePlanText,
  type Plan,
  type PlanIssue,
  validatePlan,
} from 'apiary';
import { toAiSdkTools } from 'apiary/agents';
import { type Api, toOpenAiTools } from 'apiary/catalog';
import { printPlanText } from 'apiary/plan';
import type { AppHandler } from 'apiary/apps';
import {
  type AppBenchPrediction,
  type AppBenchReport,
  type AppBenchSample,
  createSgdApps,
  openSgdDatabase,
  scoreAppBench,
  type SqliteDatabase,
} from 'apiary/appbench';
import { type ApprovalHandler, autoApprove, type ExecutionResult, executePlan } from 'apiary/exec';
import { createResponseCache, resolveModel } from 'apiary/models';
import { Bm25Index, buildRetriever, catalogCorpus, type Retriever, type RetrieverKind, tokenize } from 'apiary/retrieval';
import { baselineAgent, type PlanningAgent } from 'apiary/agents';
import type { Task } from 'apiary/tasks';
import { runEval } from 'apiary/harness';
import { buildSftSamples } from 'apiary/sft';
import { type McpServeOptions, mcpServerFactory, type McpServersConfig } from 'apiary/mcp';
import { type ScriptedReply, scriptedLanguageModel, startScriptedOpenAiServer } from 'apiary/test';
import { type RunningViewer, startViewer, viewerApp } from 'apiary/viewer';

export async function tour(): Promise<ExecutionResult> {
  const catalog: Catalog = loadCatalog('appbench');
  const { plan } = parsePlanText("Weather: [temperature = getweather(#city='Paris', #date='2019-03-01')]");
  const typed: Plan = plan;
  const issues: PlanIssue[] = validatePlan(typed, catalog);
  if (issues.length) throw new ApiaryError('PLAN_INVALID', printPlanText(plan));
  const levels: number = analyzePlan(plan).parallelScale;
  const apis: readonly Api[] = catalog.apis.slice(0, levels);
  const tools = toOpenAiTools(apis).map((t) => t.function.name);
  const sdkTools = Object.keys(toAiSdkTools(apis));
  const db: SqliteDatabase = openSgdDatabase().db;
  const approve: ApprovalHandler = autoApprove;
  const handlers: AppHandler[] = createSgdApps({ db, catalog });
  const result = await executePlan(plan, { catalog, handlers, approve });
  db.close();
  console.log(tools.length + sdkTools.length, result.status);
  return result;
}

export async function search(query: string): Promise<number[]> {
  const kind: RetrieverKind = 'bm25';
  const retriever: Retriever = await buildRetriever(kind, catalogCorpus(loadCatalog('appbench')));
  const words: string[] = tokenize(query, { splitCamelCase: false });
  const direct = new Bm25Index(['book a table']).scoreTermsSync(words);
  return [...direct, ...(await retriever.search(query, 3)).map((h) => h.doc)];
}

export const agent: PlanningAgent = baselineAgent();
export const model = resolveModel({ model: 'm', baseURL: 'http://127.0.0.1:9/v1' });
export const cache = createResponseCache;
export const score = (items: Array<{ sample: AppBenchSample; prediction: AppBenchPrediction }>): AppBenchReport =>
  scoreAppBench(items, loadCatalog('appbench'));
export type AnyTask = Task<AppBenchSample, unknown, unknown, unknown>;
export const harness: typeof runEval = runEval;
export const sft = buildSftSamples;
export const reply: ScriptedReply = { fault: 'http429' };
export const scripted = scriptedLanguageModel(() => 'ok');
export const server = startScriptedOpenAiServer;
export const mcpServers: McpServersConfig = { mcpServers: { files: { command: 'npx', args: [] } } };
export const mcp = (opts: McpServeOptions) => mcpServerFactory(opts)();
export const view = (run: string): Promise<RunningViewer> => startViewer(run, { port: 0 });
export const viewerRoutes = viewerApp;
`;

describe('the package compiles in a consumer project', () => {
  it('every package.json export is built with its types; strict NodeNext, skipLibCheck off, imports each', {
    timeout: 180_000,
  }, async () => {
    const pkgDir = await installPackage();
    const consumer = join(work, 'consumer');
    link(pkgDir, join(consumer, 'node_modules', 'apiary'));
    link(join(repo, 'node_modules', '@types', 'node'), join(consumer, 'node_modules', '@types', 'node'));
    writeFileSync(join(consumer, 'package.json'), JSON.stringify({ name: 'consumer', type: 'module' }));
    writeFileSync(
      join(consumer, 'tsconfig.json'),
      JSON.stringify({
        compilerOptions: {
          target: 'ES2022',
          module: 'NodeNext',
          moduleResolution: 'NodeNext',
          strict: true,
          skipLibCheck: false,
          noEmit: true,
          types: ['node'],
        },
        files: ['consumer.ts', 'json-schema.d.ts'],
      }),
    );
    // every subpath, whole: its declarations load and compile with the rest
    const everyEntry = Object.keys(EXPORTS)
      .map((sub, i) => `import * as entry${i} from '${specifier(sub)}';\nexport { entry${i} };`)
      .join('\n');
    writeFileSync(join(consumer, 'consumer.ts'), `${CONSUMER}\n${everyEntry}\n`);
    // @ai-sdk/provider's types import 'json-schema' but list @types/json-schema only as a dev
    // dependency (vercel/ai#15874), so every consumer of the AI SDK with skipLibCheck off installs
    // it; this stand-in plays that part, since no test may install packages.
    writeFileSync(
      join(consumer, 'json-schema.d.ts'),
      "declare module 'json-schema' {\n  export interface JSONSchema7 { [key: string]: unknown }\n  export type JSONSchema7Definition = JSONSchema7 | boolean;\n}\n",
    );
    const missing = Object.values(EXPORTS)
      .flatMap((t) => [t.types, t.default])
      .filter((file) => !existsSync(join(pkgDir, file)));
    expect(missing).toEqual([]);
    const run = await exec(process.execPath, [tsc, '-p', join(consumer, 'tsconfig.json')]).then(
      () => ({ code: 0, out: '' }),
      (e: { code: number; stdout: string }) => ({ code: e.code, out: e.stdout }),
    );
    expect(run.out).toBe('');
    expect(run.code).toBe(0);
  });
});
