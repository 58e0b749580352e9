import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
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

/**
 * Writes `<root>/toolbench/queries/<name>.json` with a SkyCast request and a GoalLine request (the
 * first of each fixture query file): the smallest file whose requests compose into two-tool ones
 * (each one's only partner is the other).
 */
export function writeTwoToolQueryFile(root: string, name: string): void {
  const first = (f: string) => JSON.parse(readFileSync(join(FIXTURES, f), 'utf8'))[0];
  const requests = [first(QUERY_FILES.G1_instruction), first(QUERY_FILES.G1_tool)];
  writeFileSync(join(root, 'toolbench', 'queries', `${name}.json`), JSON.stringify(requests));
}
