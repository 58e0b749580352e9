import { copyFileSync, mkdirSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const FIXTURES = import.meta.dirname;
const QUERY_FILES = { G1_instruction: 'queries.json', G1_tool: 'g1-tool.json' } as const;

/**
 * Lays the hand-made ToolBench fixtures out as the `toolbench/` folder of a `--data` root, as in
 * ../shared/data: `tools.jsonl` and the query files `files` (default both) under `queries/`.
 * Returns the root (a fresh temporary folder unless one is given).
 */
export function writeToolBenchFixtures(
  root: string = mkdtempSync(join(tmpdir(), 'apiary-toolbench-')),
  files: ReadonlyArray<keyof typeof QUERY_FILES> = ['G1_instruction', 'G1_tool'],
): string {
  mkdirSync(join(root, 'toolbench', 'queries'), { recursive: true });
  copyFileSync(join(FIXTURES, 'tools.jsonl'), join(root, 'toolbench', 'tools.jsonl'));
  for (const f of files) copyFileSync(join(FIXTURES, QUERY_FILES[f]), join(root, 'toolbench', 'queries', `${f}.json`));
  return root;
}
