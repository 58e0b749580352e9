import { arch, hostname, type as osType, platform, release, userInfo } from 'node:os';
import type { SystemInput } from '../plan/index.js';
import { ApiaryError } from '../shared/index.js';
import { type Clock, formatLocalDate, systemClock } from './clock.js';

/** A value the plan leaves to the user (`ask` argument). */
export interface AskQuestion {
  step: string;
  app: string;
  api: string;
  /** The parameter the answer fills. */
  arg: string;
  /** The plan's prompt, or `"<app>.<api>: <arg>?"`. */
  prompt: string;
}

export type AskProvider = (question: AskQuestion) => Promise<string> | string;

/** Where a `system` argument (clipboard, current date, shared input, device) comes from. */
export type SystemInputProvider = (
  source: SystemInput,
  question: Omit<AskQuestion, 'prompt'>,
) => Promise<unknown> | unknown;

export interface InputProviders {
  ask?: AskProvider;
  system?: SystemInputProvider;
}

export function defaultPrompt(app: string, api: string, arg: string): string {
  return `${app}.${api}: ${arg}?`;
}

/**
 * Scripted answers for `ask` arguments. A map is looked up by `"<step>.<arg>"`, then
 * `"<app>.<api>.<arg>"`, then `"<arg>"`, then the prompt text; a list is consumed in the
 * order the questions come. A question with no answer fails the step (INPUT_INVALID).
 */
export function scriptedAnswers(answers: Record<string, string> | readonly string[]): AskProvider {
  if (Array.isArray(answers)) {
    const queue = [...answers];
    return (q) => {
      const next = queue.shift();
      if (next === undefined)
        throw new ApiaryError(
          'INPUT_INVALID',
          `no scripted answer left for ${q.step}.${q.arg} ("${q.prompt}")`,
        );
      return next;
    };
  }
  const map = answers as Record<string, string>;
  return (q) => {
    for (const key of [`${q.step}.${q.arg}`, `${q.app}.${q.api}.${q.arg}`, q.arg, q.prompt])
      if (Object.hasOwn(map, key)) return String(map[key]);
    throw new ApiaryError(
      'INPUT_INVALID',
      `no scripted answer for ${q.step}.${q.arg} (keys tried: "${q.step}.${q.arg}", "${q.app}.${q.api}.${q.arg}", "${q.arg}", "${q.prompt}")`,
    );
  };
}

/** Asks the user on the terminal. Interactive: not for tests or non-TTY runs. */
export function askUserOnTerminal(
  deps: { input?: (opts: { message: string }) => Promise<string> } = {},
): AskProvider {
  return async (q) => {
    const input = deps.input ?? (await import('@inquirer/prompts')).input;
    return input({ message: q.prompt });
  };
}

export interface DeviceDetails {
  platform: string;
  os: string;
  release: string;
  arch: string;
  hostname: string;
  user: string;
}

export function currentDeviceDetails(): DeviceDetails {
  let user = '';
  try {
    user = userInfo().username;
  } catch {
    // no passwd entry (containers): leave empty
  }
  return { platform: platform(), os: osType(), release: release(), arch: arch(), hostname: hostname(), user };
}

export interface SystemInputOptions {
  /** Reads the clipboard; default: clipboardy (loaded on first use). */
  clipboard?: () => Promise<string> | string;
  /** For `current_date`; default: the system clock. */
  clock?: Pick<Clock, 'now'>;
  /** Formats the date; default local `YYYY-MM-DD`. */
  formatDate?: (ms: number) => string;
  /** What the run was given to work on (text, or file paths): the `shared_input` value. */
  sharedInput?: string | readonly string[];
  /** Device details; default: the os module. */
  device?: () => DeviceDetails | Record<string, unknown>;
}

/** System inputs from injectable sources; a source the run was not given fails the step with a reason. */
export function systemInputs(opts: SystemInputOptions = {}): SystemInputProvider {
  const clock = opts.clock ?? systemClock;
  const formatDate = opts.formatDate ?? formatLocalDate;
  return async (source) => {
    switch (source) {
      case 'current_date':
        return formatDate(clock.now());
      case 'clipboard': {
        if (opts.clipboard) return opts.clipboard();
        const clipboardy = (await import('clipboardy')).default;
        return clipboardy.read();
      }
      case 'shared_input':
        if (opts.sharedInput === undefined)
          throw new ApiaryError(
            'INPUT_INVALID',
            'the plan reads the shared input but the run was given none',
          );
        return typeof opts.sharedInput === 'string' ? opts.sharedInput : [...opts.sharedInput];
      case 'device_details':
        return (opts.device ?? currentDeviceDetails)();
    }
  };
}
