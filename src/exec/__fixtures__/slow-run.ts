// Child process for trace.test.ts: runs a plan whose steps are slow, writing a JSONL trace to
// the file named by argv[2], and is SIGKILLed by the test while calls are in flight.
import { loadCatalog } from '../../catalog/index.js';
import { executePlan } from '../execute-plan.js';
import { fakeHandlers } from '../fake-handlers.js';
import { jsonlTrace } from '../trace.js';
import { slowPlan } from './slow-plan.js';
import { registerBuiltinPlugins } from '../../benchmarks/builtin.js';

registerBuiltinPlugins(); // `loadCatalog` knows the built-in catalogs by name

const catalog = loadCatalog('appbench');
const { handlers } = fakeHandlers(catalog, {
  latencyMs: (_app, api) => (api === 'getweather' ? 20 : 60_000),
});
await executePlan(slowPlan, { catalog, handlers, trace: jsonlTrace(process.argv[2]!), runId: 'killed-run' });
