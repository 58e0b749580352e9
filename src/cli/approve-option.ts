import { type ApprovalHandler, askOnTerminal, autoApprove, denyAll } from '../exec/index.js';
import { parseChoice } from './options.js';

const APPROVE_MODES = ['auto', 'ask', 'deny'] as const;

/**
 * `--approve auto|ask|deny`: who decides transactional calls. Without the flag: ask on a terminal,
 * deny otherwise (a run without a person never books or pays).
 */
export function parseApprover(
  value: string | undefined,
  isTty = Boolean(process.stdin.isTTY),
): ApprovalHandler {
  const mode = parseChoice('--approve', value, APPROVE_MODES) ?? (isTty ? 'ask' : 'deny');
  if (mode === 'auto') return autoApprove;
  if (mode === 'deny') return denyAll;
  return askOnTerminal();
}
