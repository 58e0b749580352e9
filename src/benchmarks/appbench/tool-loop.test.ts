import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { type TurnTaker, toolLoopAgent } from '../../agents/index.js';
import { loadCatalog } from '../../catalog/index.js';
import { denyAll } from '../../exec/index.js';
import { solveSample } from '../../tasks/solver.js';
import { registerBuiltinPlugins } from '../builtin.js';
import { openBundledSgdDatabase } from './apps/sgd-database.js';
import { type AppBenchSample, loadAppBenchSamples } from './sample.js';
import { type AppBenchSampleScore, summarizeAppBench } from './score-appbench.js';
import { appBenchTask } from './task.js';
import { appBenchWorld } from './tool-loop.js';

registerBuiltinPlugins(); // `loadCatalog` knows the built-in catalogs by name

const catalog = loadCatalog('appbench');
// mm-1 of examples/appbench-mini: "Find a comedy playing in San Jose, buy 3 tickets for it on March 9th at
// 7 pm, and send 45 dollars to Lena from my debit card."
const sample = loadAppBenchSamples(
  fileURLToPath(new URL('../../../examples/appbench-mini', import.meta.url)),
  {
    prefix: 'test',
    categories: ['mm'],
  },
).find((s) => s.id === 'mm-1') as AppBenchSample;

/**
 * A scripted model for mm-1: the search and the payment at once (independent), then the tickets for
 * the movie it was shown (read from the tool result, as a model would), then an answer.
 */
function movieBuyer(tickets: string): TurnTaker {
  let turn = 0;
  return async (req) => {
    const usage = { inputTokens: 100, outputTokens: 10 };
    const call = (id: string, name: string, input: Record<string, string>) => ({
      id,
      name,
      input,
      inputText: '',
    });
    const t = turn++;
    if (t === 0)
      return {
        text: '',
        toolCalls: [
          call('f', 'Movies_findmovies', { genre: 'Comedy', location: 'San Jose' }),
          call('p', 'Payment_makepayment', { amount: '45', payment_method: 'debit card', receiver: 'Lena' }),
        ],
        usage,
        latencyMs: 0,
      };
    if (t === 1) {
      const tool = req.messages.at(-1);
      const part = Array.isArray(tool?.content) ? tool.content[0] : undefined;
      const text =
        part && part.type === 'tool-result' && part.output.type === 'text' ? part.output.value : '';
      const movie = JSON.parse(text.split('\n')[0]!) as Record<string, string>;
      const input = {
        movie_name: movie.movie_name!,
        location: movie.location!,
        show_type: movie.show_type!,
        number_of_tickets: tickets,
        show_date: '2019-03-09',
        show_time: '19:00',
      };
      return { text: '', toolCalls: [call('b', 'Movies_buymovietickets', input)], usage, latencyMs: 0 };
    }
    return { text: 'Done: tickets bought and Lena paid.', toolCalls: [], usage, latencyMs: 0 };
  };
}

async function run(tickets: string, approve = undefined as Parameters<typeof appBenchWorld>[0]['approve']) {
  const world = appBenchWorld({ catalog, db: openBundledSgdDatabase().db, ...(approve ? { approve } : {}) });
  const agent = toolLoopAgent({ turn: movieBuyer(tickets), toolset: world.toolset });
  const task = appBenchTask({ samples: [sample], catalog, agent, goldState: world.goldState });
  const { output } = await solveSample(task, sample, { seed: 0 });
  const score = (await task.scorer(sample, { output })) as AppBenchSampleScore;
  return { output, score };
}

describe('AppBench tool-loop solver and the state score', () => {
  it('the right calls with the right effect: state success, first time', async () => {
    const { output, score } = await run('3');
    expect(output.agent?.stopReason).toBe('final');
    expect(output.agent?.calls.map((c) => [c.api, c.ok, c.transactional])).toEqual([
      ['findmovies', true, false],
      ['makepayment', true, true],
      ['buymovietickets', true, true],
    ]);
    expect(output.reply.split('\n')[0]).toBe(
      "Movies: [price, show_type, theater_name, genre, street_address, location, movie_name = findmovies(#genre='Comedy', #location='San Jose')]",
    );
    expect(score.state).toEqual({
      goldExecuted: true,
      effectsExpected: 2,
      effectsMade: 2,
      effectsMatched: 2,
      searchesExpected: 1,
      searchesFound: 1,
      unauthorised: 0,
      success: true,
    });
    const report = summarizeAppBench([score]);
    expect(report.state).toMatchObject({
      success: 1,
      effectPrecision: 1,
      effectRecall: 1,
      solvedFirstTime: 1,
      solvedAfterRepair: 0,
    });
  });

  it('a booking with the wrong quantity is an unauthorised effect, not a match', async () => {
    const { score } = await run('4');
    expect(score.state).toMatchObject({ effectsMade: 2, effectsMatched: 1, unauthorised: 1, success: false });
  });

  it('a denied purchase: refused call, no effect made, state failure', async () => {
    const { output, score } = await run('3', denyAll);
    expect(output.agent?.calls.map((c) => c.error?.code ?? 'ok')).toEqual([
      'ok',
      'APPROVAL_DENIED',
      'APPROVAL_DENIED',
    ]);
    expect(score.state).toMatchObject({ effectsMade: 0, effectsMatched: 0, unauthorised: 2, success: false });
    const report = summarizeAppBench([score]);
    expect(report.state).toMatchObject({ success: 0, effectRecall: 0, effectPrecision: 0, unauthorised: 2 });
  });
});
