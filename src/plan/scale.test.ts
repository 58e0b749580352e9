import { describe, expect, it } from 'vitest';
import { analyzePlan, findCycle, topologicalLevels } from './graph.js';
import { parsePlanText, printPlanText } from './plan-text.js';
import { renderPlanDag } from './render-dag.js';

/** Issue 13 item 9: long plans are handled in linear time (timings: perf/plan-show.ts). */

const FIRST = `Weather: [temperature = getweather(#city='Alamo', #date='2019-03-01')]`;
const NEXT = `Weather: [temperature = getweather(#city=temperature, #date='2019-03-01')]`;
const chainText = (n: number) => [FIRST, ...Array.from({ length: n - 1 }, () => NEXT)].join('\n');

describe('a 2,000-step chain', () => {
  const plan = parsePlanText(chainText(2000)).plan;

  it('binds each bare name to the previous step', () => {
    expect(plan.steps).toHaveLength(2000);
    expect(plan.steps[1999]!.args.city).toEqual({ kind: 'ref', step: 's1999', output: 'temperature' });
    expect(plan.steps[1]!.args.city).toEqual({ kind: 'ref', step: 's1', output: 'temperature' });
  });

  it('draws one component with one step per level, each reading the step before', () => {
    const expected = ['2000 steps · 1 parallel component(s) · sequential depth 2000', '', 'component 1'];
    for (let k = 1; k <= 2000; k++)
      expected.push(
        `  level ${k}`,
        `  └─ s${k} Weather.getweather → temperature`,
        `        city = ${k === 1 ? '"Alamo"' : `← s${k - 1}.temperature`}`,
        '        date = "2019-03-01"',
      );
    expect(renderPlanDag(plan)).toBe(expected.join('\n'));
  });

  it('prints back to the same text', () => {
    expect(printPlanText(plan)).toBe(chainText(2000));
  });

  it('analyses the chain: 2,000 levels, critical path s1 … s2000', () => {
    const a = analyzePlan(plan);
    expect(a.sequentialScale).toBe(2000);
    expect(a.parallelScale).toBe(1);
    expect(a.criticalPath).toEqual(plan.steps.map((s) => s.id));
  });
});

describe('a 40,000-step chain', () => {
  const plan = parsePlanText(chainText(40_000)).plan;

  it('has no cycle and 40,000 levels (no call-stack overflow)', () => {
    expect(findCycle(plan)).toBeUndefined();
    expect(topologicalLevels(plan)).toHaveLength(40_000);
  });

  it('still finds a cycle closed at its end', () => {
    const cyclic = {
      steps: plan.steps.map((s, i) =>
        i === 0
          ? {
              ...s,
              args: { ...s.args, city: { kind: 'ref' as const, step: 's40000', output: 'temperature' } },
            }
          : s,
      ),
    };
    const cycle = findCycle(cyclic)!;
    expect(cycle).toHaveLength(40_001);
    expect(cycle.slice(0, 3)).toEqual(['s1', 's40000', 's39999']);
    expect(cycle.at(-1)).toBe('s1');
    expect(topologicalLevels(cyclic)).toEqual([]);
  });
});
