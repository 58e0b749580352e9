import { parseChoice } from '../../cli/options.js';
import { printJson } from '../../cli/output.js';
import type { ScoreFlags } from '../../plugins/index.js';
import { ApiaryError } from '../../shared/index.js';
import { formatShortcutsReport, scoreShortcutsResults } from './index.js';

const MODES = ['official', 'corrected', 'both'] as const;

/** `apiary score shortcuts`: official result records (JSONL or a JSON array) in one or both modes. */
export async function scoreShortcuts(flags: ScoreFlags): Promise<void> {
  const mode = parseChoice('--mode', flags.mode, MODES);
  const results = flags.results ?? flags.predictions;
  if (!results) throw new ApiaryError('USAGE', 'shortcuts: pass --results FILE (official result records)');
  if (!flags.data)
    throw new ApiaryError(
      'USAGE',
      'shortcuts: pass --data DIR (the official files, incl. the check-intersection file)',
    );
  const scored = scoreShortcutsResults(results, flags.data);
  const reports = [
    ...(mode !== 'corrected' ? [scored.official] : []),
    ...(mode !== 'official' ? [scored.corrected] : []),
  ];
  if (flags.json) {
    printJson({
      task: 'shortcuts',
      results,
      data: flags.data,
      records: scored.scores.length,
      notes: scored.notes,
      ...Object.fromEntries(reports.map((r) => [r.mode, r])),
    });
    return;
  }
  process.stdout.write(`${reports.map(formatShortcutsReport).join('\n\n')}\n`);
  for (const n of scored.notes) process.stdout.write(`note: ${n}\n`);
}
