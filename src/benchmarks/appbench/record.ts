import { z } from 'zod';
import { parseJsonText, parseWith, readTextFile } from '../../shared/index.js';

/** One AppBench record (`data/test/test_{ss,sm,ms,mm}.json`, docs/appbench.md, "Record format"). */
const AppBenchRecordSchema = z.object({
  input: z.string(),
  output: z.object({
    used_app: z.array(z.string()),
    used_api: z.array(z.record(z.string(), z.record(z.string(), z.unknown()))),
    result_arguments: z.array(z.array(z.string())),
    api_results: z.array(z.string()),
    middle_arguments: z.array(z.string()).optional(),
    user_aware_arguments: z.record(z.string(), z.unknown()),
  }),
});
export type AppBenchRecord = z.infer<typeof AppBenchRecordSchema>;

import { APPBENCH_CATEGORIES, type AppBenchCategory } from './categories.js';

export { APPBENCH_CATEGORIES, type AppBenchCategory };

/** Parses one category file; errors name the file, the record index and the field. */
export function parseAppBenchFile(text: string, file: string): AppBenchRecord[] {
  const json = parseJsonText(text, file);
  if (!Array.isArray(json)) return parseWith(z.array(AppBenchRecordSchema), json, { file });
  return json.map((r, i) => parseWith(AppBenchRecordSchema, r, { file, record: i + 1 }));
}

export function readAppBenchFile(path: string): AppBenchRecord[] {
  return parseAppBenchFile(readTextFile(path), path);
}
