import { readFileSync, statSync } from 'node:fs';
import { isAbsolute } from 'node:path';
import { sha256Hex, stableJson } from '../../shared/index.js';

/** What identifies a tool call in a recording. */
export interface CallKey {
  /** sha256 over the tool, the API and the arguments with input files replaced by their hashes. */
  key: string;
  /** Argument name → sha256 of the file it names (image arguments are file paths). */
  inputs: Record<string, string>;
}

function isFile(path: string): boolean {
  try {
    return statSync(path).isFile();
  } catch {
    return false;
  }
}

/**
 * The key of a call. A string argument that is the absolute path of an existing file (GTA's
 * loader and the CLI make image paths absolute; a relative one could be any text, such as a
 * Calculator expression `2` beside a file named `2`) counts by its content, not its path: the same image under another data root (another user, another machine) is the same
 * call, and an edited image is a different one.
 */
export function callKey(tool: string, api: string, args: Record<string, unknown>): CallKey {
  const inputs: Record<string, string> = {};
  const keyed: Record<string, unknown> = {};
  for (const [name, value] of Object.entries(args)) {
    if (typeof value === 'string' && isAbsolute(value) && isFile(value)) {
      const hash = sha256Hex(readFileSync(value));
      inputs[name] = hash;
      keyed[name] = { file: hash };
    } else keyed[name] = value;
  }
  return { key: sha256Hex(stableJson({ tool, api, args: keyed })), inputs };
}
