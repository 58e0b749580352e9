import { ApiaryError } from '../shared/index.js';
import { type SolverDefinition, solverNamed } from './solver.js';
import type { TaskDefinition } from './task.js';

/** Names that `apiary eval <name>` reads as something else. */
const RESERVED_NAMES = new Set(['report', 'all']);

/** Tasks by name. The CLI uses the default registry; tests can build their own. */
export class TaskRegistry {
  private readonly defs = new Map<string, TaskDefinition>();

  register(def: TaskDefinition): void {
    if (!/^[a-z0-9][a-z0-9-]*$/.test(def.name) || RESERVED_NAMES.has(def.name))
      throw new ApiaryError('USAGE', `invalid task name "${def.name}" (lower-case letters, digits, dashes)`);
    if (this.defs.has(def.name)) throw new ApiaryError('USAGE', `task "${def.name}" is already registered`);
    const solvers = Object.keys(def.solvers);
    for (const [key, solver] of Object.entries(def.solvers))
      if (solver.name !== key)
        throw new ApiaryError(
          'USAGE',
          `task "${def.name}": solver "${solver.name}" is registered as "${key}"`,
        );
    for (const s of [def.defaultSolver, def.noModelSolver])
      if (s !== undefined && !solvers.includes(s))
        throw new ApiaryError(
          'USAGE',
          `task "${def.name}": solver "${s}" is not among ${solvers.join(', ')}`,
        );
    this.defs.set(def.name, def);
  }

  /** The task called `name`; NOT_FOUND lists the known names. */
  get(name: string): TaskDefinition {
    const def = this.defs.get(name);
    if (!def)
      throw new ApiaryError(
        'NOT_FOUND',
        `unknown task "${name}" (known: ${this.names().join(', ') || 'none registered'})`,
      );
    return def;
  }

  has(name: string): boolean {
    return this.defs.has(name);
  }

  names(): string[] {
    return [...this.defs.keys()].sort();
  }

  /** Every registered task, by name. */
  list(): TaskDefinition[] {
    return this.names().map((n) => this.defs.get(n)!);
  }
}

export const defaultTaskRegistry = new TaskRegistry();

export function registerTask(def: TaskDefinition): void {
  defaultTaskRegistry.register(def);
}

export function getTask(name: string): TaskDefinition {
  return defaultTaskRegistry.get(name);
}

export function listTasks(): TaskDefinition[] {
  return defaultTaskRegistry.list();
}

/** The solver of a task, NOT_FOUND listing the task's solvers. */
export function getSolver(def: TaskDefinition, name: string): SolverDefinition {
  return solverNamed(def.name, def.solvers, name);
}
