// An agent over a catalog in 15 lines of code: `APIARY_BASE_URL=… APIARY_MODEL=… npx tsx examples/agent.ts`.
// (Inside the repo we import the sources; an installed package imports 'apiary' and 'apiary/appbench'.)
import { createOpenAICompatible } from '@ai-sdk/openai-compatible';
import { catalogToolset, modelTurns, nativeToolsProtocol, runAgent } from '../src/agents/index.js';
import { appBenchCatalogSource, createSgdApps, openSgdDatabase } from '../src/benchmarks/appbench/index.js';
import { indexCatalog } from '../src/catalog/index.js';
import { appRegistry, autoApprove } from '../src/exec/index.js';

const catalog = appBenchCatalogSource.load({}); // 15 apps, 33 APIs; simulated apps run on SGD data
const apps = appRegistry(createSgdApps({ db: openSgdDatabase().db, catalog }));
const toolset = catalogToolset(catalog.apis, { catalog: indexCatalog(catalog), apps, approve: autoApprove });
const endpoint = createOpenAICompatible({ name: 'llm', baseURL: process.env.APIARY_BASE_URL ?? 'http://localhost:8000/v1' });
const turn = modelTurns(endpoint(process.env.APIARY_MODEL ?? 'qwen2.5-7b-instruct'));
const instruction = 'Find an American restaurant in San Francisco and book a table for 2 at 19:00';
const result = await runAgent({ turn, protocol: nativeToolsProtocol(), instruction, toolset });
console.log(result.stopReason, result.answer);
for (const c of result.calls) console.log(`${c.app}.${c.api}`, c.outcome.ok ? 'ok' : c.outcome.error.code);
