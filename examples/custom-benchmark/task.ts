/**
 * The `unit-convert` task: a dataset of a few inline questions, a no-model solver that reads the
 * question and calls the Units tool through `dispatchCall`, and an exact-answer scorer.
 */
import { createHash } from 'node:crypto';
import { appRegistry, dispatchCall } from '../../src/exec/index.js';
import { ApiaryError } from '../../src/shared/index.js';
import {
  createSolver,
  defineSolver,
  type Outcome,
  sampleSolver,
  type Task,
  type TaskDefinition,
  type TaskSample,
} from '../../src/tasks/index.js';
import { unitsHandler, unitsIndex } from './units-app.js';
import { z } from 'zod';

export interface UnitSample extends TaskSample {
  readonly id: string;
  readonly category: 'length' | 'mass';
  readonly question: string;
  readonly answer: number;
}

/** The dataset: inline, so the example needs no data folder. */
export const UNIT_SAMPLES: readonly UnitSample[] = [
  { id: 'km-to-m', category: 'length', question: 'How many m is 3 km?', answer: 3000 },
  { id: 'mi-to-km', category: 'length', question: 'How many km is 2 mi?', answer: 3.218688 },
  { id: 'kg-to-lb', category: 'mass', question: 'How many lb is 10 kg?', answer: 22.046226218487757 },
  // a unit the tool does not know: the call is refused by the catalog's argument check
  { id: 'st-to-kg', category: 'mass', question: 'How many kg is 2 st?', answer: 12.70058636 },
];

export interface UnitScore {
  correct: boolean;
}

export interface UnitReport {
  total: number;
  correct: number;
  accuracy: number;
}

const QUESTION = /^How many (\w+) is ([\d.]+) (\w+)\?$/;
const apps = appRegistry([unitsHandler]);

/** Reads the question, calls `Units.convert` through dispatchCall, answers with its value. */
async function solveByRule(sample: UnitSample, signal?: AbortSignal): Promise<number> {
  const m = QUESTION.exec(sample.question);
  if (!m) throw new ApiaryError('INPUT_INVALID', `cannot read the question "${sample.question}"`);
  const [, to, value, from] = m;
  const outcome = await dispatchCall(
    { app: 'Units', api: 'convert', args: { value: Number(value), from, to } },
    { catalog: unitsIndex, apps, ...(signal ? { signal } : {}) },
  );
  if (!outcome.ok) throw new ApiaryError('TOOL_FAILED', `${outcome.error.code}: ${outcome.error.message}`);
  return (outcome.raw as { value: number }).value;
}

function score(sample: UnitSample, outcome: Outcome<number>): UnitScore {
  return { correct: outcome.output !== null && Math.abs(outcome.output - sample.answer) < 1e-9 };
}

function summarize(scores: readonly UnitScore[]): UnitReport {
  const correct = scores.filter((s) => s.correct).length;
  return { total: scores.length, correct, accuracy: scores.length ? correct / scores.length : 0 };
}

/** The one solver: a registered value with (no) arguments, built per run by `createSolver`. */
const ruleSolver = defineSolver({
  name: 'rule',
  description: 'reads the question and calls Units.convert (no model)',
  args: z.object({}),
  needsModel: false,
  create: () =>
    sampleSolver<UnitSample, number>(async (sample, ctx) => ({
      output: await solveByRule(sample, ctx.signal),
      modelCalls: 0,
    })),
});

export const unitConvertTask: TaskDefinition<UnitReport, UnitScore> = {
  name: 'unit-convert',
  description: 'convert lengths and masses with the Units tool; exact-answer accuracy',
  version: '1',
  options: z.object({}),
  solvers: { rule: ruleSolver },
  defaultSolver: 'rule',
  async load(ctx) {
    const byCategory = new Map<string, number>();
    const dataset = UNIT_SAMPLES.filter((s) => {
      const n = (byCategory.get(s.category) ?? 0) + 1;
      byCategory.set(s.category, n);
      return ctx.limit === undefined || n <= ctx.limit;
    });
    const task: Task<UnitSample, number, UnitScore, UnitReport> = {
      name: 'unit-convert',
      version: '1',
      dataset,
      solver: createSolver(ruleSolver, ctx.solverOptions, undefined),
      scorer: score,
      summarize,
      formatReport: (r) => `unit-convert: ${r.correct}/${r.total} correct (accuracy ${r.accuracy})\n`,
    };
    const sha256 = createHash('sha256').update(JSON.stringify(UNIT_SAMPLES)).digest('hex');
    return { task, dataSource: { path: 'inline:unit-convert', sha256 } };
  },
  summarize,
  formatReport: (r) => `unit-convert: ${r.correct}/${r.total} correct (accuracy ${r.accuracy})\n`,
  metrics: (r) => ({ accuracy: r.accuracy }),
  passed: (s) => s.correct,
};
