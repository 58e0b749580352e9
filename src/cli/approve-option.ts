import { type ApprovalHandler, askOnTerminal, autoApprove, denyAll } from '../exec/index.js';
import { ApiaryError } from '../shared/index.js';
import { parseChoice } from './options.js';

const APPROVE_MODES = ['auto', 'ask', 'deny'] as const;

/** What `--approve` chose: who decides, and what to report once the run is over. */
export interface CliApprover {
  approve: ApprovalHandler;
  /**
   * Called after the steps are printed: a USAGE error when `--approve ask` had nobody to ask (no
   * terminal) and refused calls for that reason, else nothing.
   */
  unansweredError(): ApiaryError | undefined;
}

const NO_TERMINAL =
  '--approve ask needs a terminal to ask on (stdin is not one); pass --approve auto or --approve deny';

/**
 * `--approve auto|ask|deny`: who decides transactional calls. Without the flag: ask on a terminal,
 * deny otherwise (a run without a person never books or pays). `--approve ask` without a terminal
 * refuses each transactional call (a prompt on a closed stdin would never be answered, and the process
 * ended silently with 0) and makes the command end with a coded error once its steps are printed.
 */
export function parseApprover(value: string | undefined, isTty = Boolean(process.stdin.isTTY)): CliApprover {
  const mode = parseChoice('--approve', value, APPROVE_MODES) ?? (isTty ? 'ask' : 'deny');
  const none = () => undefined;
  if (mode === 'auto') return { approve: autoApprove, unansweredError: none };
  if (mode === 'deny') return { approve: denyAll, unansweredError: none };
  if (isTty) return { approve: askOnTerminal(), unansweredError: none };
  let refused = 0;
  return {
    approve: () => {
      refused++;
      return { approved: false, reason: 'no terminal to ask on' };
    },
    unansweredError: () =>
      refused
        ? new ApiaryError('USAGE', `${NO_TERMINAL} (${refused} transactional call(s) refused)`)
        : undefined,
  };
}
