import { dependenciesOf, type Plan } from './schema.js';

/** A step's direct dependencies restricted to steps that exist in the plan. */
function depsIn(plan: Plan): Map<string, string[]> {
  const ids = new Set(plan.steps.map((s) => s.id));
  return new Map(plan.steps.map((s) => [s.id, dependenciesOf(s).filter((d) => ids.has(d))]));
}

/** One dependency cycle as a closed path of step ids (`[a, b, a]`), or undefined if the plan is acyclic. */
export function findCycle(plan: Plan): string[] | undefined {
  const deps = depsIn(plan);
  const state = new Map<string, 1 | 2>(); // 1 = on the stack, 2 = done
  const stack: string[] = [];
  const visit = (id: string): string[] | undefined => {
    state.set(id, 1);
    stack.push(id);
    for (const d of deps.get(id) ?? []) {
      const s = state.get(d);
      if (s === 1) return [...stack.slice(stack.indexOf(d)), d];
      if (s === undefined) {
        const found = visit(d);
        if (found) return found;
      }
    }
    stack.pop();
    state.set(id, 2);
    return undefined;
  };
  for (const s of plan.steps)
    if (!state.has(s.id)) {
      const found = visit(s.id);
      if (found) return found;
    }
  return undefined;
}

/**
 * Topological levels: level 0 holds steps with no dependencies, level k the steps whose
 * latest dependency is at level k-1. Steps of one level can run in parallel. Steps on a
 * cycle are left out (validate first).
 */
export function topologicalLevels(plan: Plan): string[][] {
  const deps = depsIn(plan);
  const level = new Map<string, number>();
  let changed = true;
  while (changed) {
    changed = false;
    for (const s of plan.steps) {
      if (level.has(s.id)) continue;
      const ds = deps.get(s.id)!;
      if (ds.every((d) => level.has(d))) {
        level.set(s.id, ds.length ? Math.max(...ds.map((d) => level.get(d)!)) + 1 : 0);
        changed = true;
      }
    }
  }
  const levels: string[][] = [];
  for (const s of plan.steps) {
    const l = level.get(s.id);
    if (l === undefined) continue;
    levels[l] = [...(levels[l] ?? []), s.id];
  }
  return levels;
}

/** Weakly connected components of the dependency graph, each in plan order. */
export function connectedComponents(plan: Plan): string[][] {
  const parent = new Map(plan.steps.map((s) => [s.id, s.id]));
  const find = (x: string): string => {
    let r = x;
    while (parent.get(r) !== r) r = parent.get(r)!;
    parent.set(x, r);
    return r;
  };
  for (const [id, ds] of depsIn(plan)) for (const d of ds) parent.set(find(id), find(d));
  const groups = new Map<string, string[]>();
  for (const s of plan.steps) {
    const r = find(s.id);
    const g = groups.get(r);
    if (g) g.push(s.id);
    else groups.set(r, [s.id]);
  }
  return [...groups.values()];
}

export interface PlanAnalysis {
  components: string[][];
  levels: string[][];
  /** Number of independent sub-plans (weakly connected components): MetaBench's "Para." size. */
  parallelScale: number;
  /** Calls on the longest dependency chain: MetaBench's "Seq." size. */
  sequentialScale: number;
  /** One longest chain, first call first. */
  criticalPath: string[];
}

export function analyzePlan(plan: Plan): PlanAnalysis {
  const levels = topologicalLevels(plan);
  const deps = depsIn(plan);
  const depth = new Map<string, number>();
  levels.flat().forEach((id) => {
    const ds = deps.get(id)!;
    depth.set(id, ds.length ? Math.max(...ds.map((d) => depth.get(d)!)) + 1 : 1);
  });
  let end: string | undefined;
  for (const [id, d] of depth) if (end === undefined || d > depth.get(end)!) end = id;
  const criticalPath: string[] = [];
  for (let cur = end; cur !== undefined; ) {
    criticalPath.unshift(cur);
    const ds: string[] = deps.get(cur)!;
    cur = ds.length ? ds.reduce((a, b) => (depth.get(b)! > depth.get(a)! ? b : a)) : undefined;
  }
  return {
    components: connectedComponents(plan),
    levels,
    parallelScale: connectedComponents(plan).length,
    sequentialScale: levels.length,
    criticalPath,
  };
}
