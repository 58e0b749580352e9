import { analyzePlan } from './graph.js';
import type { ArgValue, Plan } from './schema.js';

function describeValue(v: ArgValue): string {
  switch (v.kind) {
    case 'literal':
      return JSON.stringify(v.value);
    case 'ref':
      return v.step ? `← ${v.step}.${v.output}` : `← ?.${v.output} (dangling)`;
    case 'ask':
      return v.prompt ? `ask user: ${JSON.stringify(v.prompt)}` : 'ask user';
    case 'system':
      return `system: ${v.source}`;
  }
}

/**
 * Draws a plan for the terminal: one block per parallel component, steps grouped by
 * topological level (steps on one level can run at the same time), each with its inputs.
 */
export function renderPlanDag(plan: Plan): string {
  const a = analyzePlan(plan);
  const byId = new Map(plan.steps.map((s) => [s.id, s]));
  const levelOf = new Map<string, number>();
  a.levels.forEach((ids, l) => {
    for (const id of ids) levelOf.set(id, l);
  });
  const lines = [
    `${plan.steps.length} steps · ${a.parallelScale} parallel component(s) · sequential depth ${a.sequentialScale}`,
  ];
  a.components.forEach((ids, c) => {
    lines.push('', `component ${c + 1}`);
    // One pass to group the component's steps by level (filtering per level is quadratic on a chain).
    const byLevel = new Map<number, string[]>();
    for (const id of ids) {
      const l = levelOf.get(id) ?? -1;
      const list = byLevel.get(l);
      if (list) list.push(id);
      else byLevel.set(l, [id]);
    }
    for (const [l, here] of [...byLevel].sort(([x], [y]) => x - y)) {
      lines.push(`  ${l < 0 ? 'cycle' : `level ${l + 1}`}${here.length > 1 ? ' (parallel)' : ''}`);
      here.forEach((id, i) => {
        const s = byId.get(id)!;
        const branch = i === here.length - 1 ? '└─' : '├─';
        const pipe = i === here.length - 1 ? '  ' : '│ ';
        lines.push(
          `  ${branch} ${s.id} ${s.app}.${s.api}${s.outputs.length ? ` → ${s.outputs.join(', ')}` : ''}`,
        );
        for (const [k, v] of Object.entries(s.args)) lines.push(`  ${pipe}    ${k} = ${describeValue(v)}`);
      });
    }
  });
  return lines.join('\n');
}
