import { dependenciesOf, type Plan } from './schema.js';

/** A step's direct dependencies restricted to steps that exist in the plan. */
function depsIn(plan: Plan): Map<string, string[]> {
  const ids = new Set(plan.steps.map((s) => s.id));
  return new Map(plan.steps.map((s) => [s.id, dependenciesOf(s).filter((d) => ids.has(d))]));
}

/**
 * One dependency cycle as a closed path of step ids (`[a, b, a]`), or undefined if the plan is acyclic.
 * Depth-first with an explicit stack: a 40,000-step chain must not overflow the call stack.
 */
export function findCycle(plan: Plan): string[] | undefined {
  const deps = depsIn(plan);
  const state = new Map<string, 1 | 2>(); // 1 = on the path, 2 = done
  for (const s of plan.steps) {
    if (state.has(s.id)) continue;
    const path: string[] = [s.id];
    const next: number[] = [0]; // per path entry: index of the next dependency to visit
    const onPath = new Map<string, number>([[s.id, 0]]);
    state.set(s.id, 1);
    while (path.length) {
      const top = path.length - 1;
      const id = path[top]!;
      const ds = deps.get(id) ?? [];
      if (next[top]! < ds.length) {
        const d = ds[next[top]!++]!;
        const st = state.get(d);
        if (st === 1) return [...path.slice(onPath.get(d)!), d];
        if (st === undefined) {
          state.set(d, 1);
          onPath.set(d, path.length);
          path.push(d);
          next.push(0);
        }
      } else {
        path.pop();
        next.pop();
        onPath.delete(id);
        state.set(id, 2);
      }
    }
  }
  return undefined;
}

/**
 * Topological levels: level 0 holds steps with no dependencies, level k the steps whose
 * latest dependency is at level k-1. Steps of one level can run in parallel, listed in plan
 * order. Steps on a cycle (and steps after one) are left out (validate first). Linear in the
 * plan (Kahn's algorithm).
 */
export function topologicalLevels(plan: Plan): string[][] {
  const deps = depsIn(plan);
  const waiting = new Map<string, number>();
  const dependents = new Map<string, string[]>();
  for (const [id, ds] of deps) {
    waiting.set(id, ds.length);
    for (const d of ds) {
      const list = dependents.get(d);
      if (list) list.push(id);
      else dependents.set(d, [id]);
    }
  }
  const level = new Map<string, number>();
  const ready = plan.steps.filter((s) => waiting.get(s.id) === 0).map((s) => s.id);
  for (const id of ready) level.set(id, 0);
  for (let i = 0; i < ready.length; i++) {
    const id = ready[i]!;
    const l = level.get(id)!;
    for (const dep of dependents.get(id) ?? []) {
      level.set(dep, Math.max(level.get(dep) ?? 0, l + 1));
      const left = waiting.get(dep)! - 1;
      waiting.set(dep, left);
      if (left === 0) ready.push(dep);
    }
  }
  const levels: string[][] = [];
  for (const s of plan.steps) {
    if (waiting.get(s.id) !== 0) continue;
    const l = level.get(s.id)!;
    const list = levels[l];
    if (list) list.push(s.id);
    else levels[l] = [s.id];
  }
  return levels;
}

/** Weakly connected components of the dependency graph, each in plan order. */
function connectedComponents(plan: Plan): string[][] {
  const parent = new Map(plan.steps.map((s) => [s.id, s.id]));
  const find = (x: string): string => {
    let r = x;
    while (parent.get(r) !== r) r = parent.get(r)!;
    // Path compression: every step on the way now points at the root.
    for (let c = x; c !== r; ) {
      const up = parent.get(c)!;
      parent.set(c, r);
      c = up;
    }
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
  const criticalPath: string[] = []; // built last call first, then reversed (unshift is quadratic)
  for (let cur = end; cur !== undefined; ) {
    criticalPath.push(cur);
    const ds: string[] = deps.get(cur)!;
    cur = ds.length ? ds.reduce((a, b) => (depth.get(b)! > depth.get(a)! ? b : a)) : undefined;
  }
  criticalPath.reverse();
  const components = connectedComponents(plan);
  return {
    components,
    levels,
    parallelScale: components.length,
    sequentialScale: levels.length,
    criticalPath,
  };
}
