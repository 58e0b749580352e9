import { defaultTaskRegistry, type TaskRegistry } from '../../tasks/index.js';
import { toolBenchRetrievalDefinition } from './retrieval-task.js';

export function registerToolBenchRetrievalTask(registry: TaskRegistry = defaultTaskRegistry): void {
  registry.register(toolBenchRetrievalDefinition);
}
