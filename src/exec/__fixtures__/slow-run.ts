// Child process for trace.test.ts: runs a plan whose steps are slow, writing a JSONL trace to
// the file named by argv[2], and is SIGKILLed by the test while calls are in flight.
import { loadCatalog } from '../../catalog/index.js';
import { literal, type Plan, ref } from '../../plan/index.js';
import { executePlan } from '../execute-plan.js';
import { fakeHandlers } from '../fake-handlers.js';
import { jsonlTrace } from '../trace.js';

const catalog = loadCatalog('appbench');
const { handlers } = fakeHandlers(catalog, {
  latencyMs: (_app, api) => (api === 'getweather' ? 20 : 60_000),
});
const plan: Plan = {
  steps: [
    { id: 'w1', app: 'Weather', api: 'getweather', args: { city: literal('Rome') }, outputs: ['city'] },
    { id: 'w2', app: 'Weather', api: 'getweather', args: { city: literal('Oslo') }, outputs: ['city'] },
    { id: 'slow1', app: 'Travel', api: 'findattractions', args: { location: ref('w1', 'city') }, outputs: [] },
    { id: 'slow2', app: 'Travel', api: 'findattractions', args: { location: ref('w2', 'city') }, outputs: [] },
    { id: 'slow3', app: 'Media', api: 'findmovies', args: { genre: literal('Comedy') }, outputs: ['title'] },
    { id: 'after', app: 'Media', api: 'playmovie', args: { title: ref('slow3', 'title') }, outputs: [] },
  ],
};
await executePlan(plan, { catalog, handlers, trace: jsonlTrace(process.argv[2]!), runId: 'killed-run' });
