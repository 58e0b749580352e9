import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { appBenchSftStyle, loadAppBenchGoldTasks } from '../benchmarks/appbench/sft-source.js';
import { registerBuiltinPlugins } from '../benchmarks/builtin.js';
import { loadCatalog } from '../catalog/index.js';
import { scriptedLanguageModel } from '../test/index.js';
import { buildSftSamples } from './index.js';
import { cleanParaphrase, lostValue, PARAPHRASE_SYSTEM_PROMPT, paraphraseInstruction } from './paraphrase.js';

registerBuiltinPlugins(); // `loadCatalog` knows the built-in catalogs by name

const FIXTURES = resolve(import.meta.dirname, '__fixtures__');
const catalog = loadCatalog(resolve(FIXTURES, 'mini-catalog.json'));
const tasks = () => loadAppBenchGoldTasks(resolve(FIXTURES, 'mini-appbench'), catalog);

describe('paraphrase helpers', () => {
  it('cleans quotes and line breaks', () => {
    expect(cleanParaphrase('  "Book a car."\n')).toBe('Book a car.');
    expect(cleanParaphrase('Book\n a car')).toBe('Book a car');
    expect(cleanParaphrase("'Tom's car'")).toBe("'Tom's car'");
  });

  it('finds a value the original states but the paraphrase lost', () => {
    expect(lostValue('Trains to Oslo on 2019-03-05', 'A train to OSLO', ['Oslo', '2019-03-05'])).toBe(
      '2019-03-05',
    );
    expect(
      lostValue('Trains to Oslo on March 5th', 'A train to oslo', ['Oslo', '2019-03-05']),
    ).toBeUndefined();
  });
});

describe('paraphrase augmentation', () => {
  it('rewrites instructions through the model and keeps the original when a reply is unusable', async () => {
    const model = scriptedLanguageModel((req) => {
      const user = req.messages.at(-1)!.content;
      if (user.startsWith('Find Thai')) return 'Show me restaurant options in Bergen.';
      if (user.startsWith('Find a train'))
        return '"Book 2 seats on a train from Oslo to Bergen on March 5th."';
      return { fault: 'http500' };
    });
    const opts = { seed: 7, distractors: 1, limit: 3, style: appBenchSftStyle };
    const plain = await buildSftSamples(tasks(), catalog, opts);
    const { samples, stats } = await buildSftSamples(tasks(), catalog, {
      ...opts,
      paraphrase: { model, maxRetries: 0 },
    });
    expect(samples.map((s) => s.user)).toEqual([
      'Find Thai restaurant options in Bergen.',
      'Book 2 seats on a train from Oslo to Bergen on March 5th.',
      'Is it going to rain in Bergen tomorrow? Check the weather.',
    ]);
    expect(samples.map((s) => s.paraphrase?.status)).toEqual(['rejected', 'ok', 'failed']);
    expect(samples[0]!.paraphrase?.reason).toBe('lost the value "Thai"');
    expect(stats.paraphrase).toEqual({ ok: 1, rejected: 1, failed: 1 });
    // paraphrasing draws no randomness: everything else is as without it
    expect(samples.map((s) => [s.id, s.system, s.assistant])).toEqual(
      plain.samples.map((s) => [s.id, s.system, s.assistant]),
    );
    expect(model.scriptedRequests.map((r) => r.messages)).toEqual([
      [
        { role: 'system', content: PARAPHRASE_SYSTEM_PROMPT },
        { role: 'user', content: 'Find Thai restaurant options in Bergen.' },
      ],
      [
        { role: 'system', content: PARAPHRASE_SYSTEM_PROMPT },
        { role: 'user', content: 'Find a train from Oslo to Bergen on March 5th and book 2 seats.' },
      ],
      [
        { role: 'system', content: PARAPHRASE_SYSTEM_PROMPT },
        { role: 'user', content: 'Is it going to rain in Bergen tomorrow? Check the weather.' },
      ],
    ]);
    expect(model.scriptedRequests[0]!.body.temperature).toBe(0.7);
  });

  it('keeps sample order with concurrent calls', async () => {
    const model = scriptedLanguageModel(async (req) => {
      const user = req.messages.at(-1)!.content;
      await new Promise((r) => setTimeout(r, user.length % 7)); // replies finish out of order
      return `Please: ${user}`;
    });
    const { samples, stats } = await buildSftSamples(tasks(), catalog, {
      seed: 7,
      style: appBenchSftStyle,
      paraphrase: { model },
      concurrency: 3,
    });
    expect(stats.paraphrase).toEqual({ ok: 6, rejected: 0, failed: 0 });
    expect(samples.map((s) => s.user)).toEqual(
      [
        'Find Thai restaurant options in Bergen.',
        'Find a train from Oslo to Bergen on March 5th and book 2 seats.',
        'Is it going to rain in Bergen tomorrow? Check the weather.',
        'Look for a sushi restaurant in Oslo and book a table at 19:00.',
        'What will the weather be in Oslo on March 3rd?',
        'Find a train from Oslo to Bergen on March 5th and book 2 seats.',
      ].map((u) => `Please: ${u}`),
    );
  });

  it('rejects an empty or unchanged reply', async () => {
    const echo = scriptedLanguageModel((req) => req.messages.at(-1)!.content);
    expect(await paraphraseInstruction('Weather in Oslo', ['Oslo'], { model: echo })).toEqual({
      text: 'Weather in Oslo',
      status: 'rejected',
      reason: 'same as the original',
    });
    const empty = scriptedLanguageModel(() => '  ');
    expect((await paraphraseInstruction('Weather in Oslo', [], { model: empty })).reason).toBe('empty reply');
  });
});
