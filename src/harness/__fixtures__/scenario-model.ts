/**
 * A model a worker thread can build from a recipe (`{ kind: 'module', module: <this file> }`):
 * the scripted AppBench-mini scenario of ./appbench-mini-scenario.ts (gold for 5 samples, a wrong
 * value for ss-1, only the first call for ms-0, an HTTP 500 for mm-0). `exitOnCall: n` ends the
 * thread (process.exit inside a worker) on its n-th model call; `down` times every call out;
 * `latencyMs` answers after that long (so that a stop reaches workers while samples are in flight).
 */
import { resolve } from 'node:path';
import { appBenchGoldReply, loadAppBenchDataset } from '../../benchmarks/appbench/index.js';
import { type ScriptedChatRequest, type ScriptedReply, scriptedLanguageModel } from '../../test/index.js';

export const MINI = resolve(import.meta.dirname, '../../../examples/appbench-mini');
const WRONG_SS1 = "Restaurants: [restaurant_name = findrestaurants(#category='Italian', #location='Oakland')]";
const byInput = new Map(loadAppBenchDataset(MINI).samples.map((s) => [s.record.input, s]));

export function scenarioReply(req: ScriptedChatRequest): ScriptedReply {
  const user = req.messages.filter((m) => m.role === 'user').at(-1)?.content ?? '';
  const s = byInput.get(user);
  if (!s) throw new Error(`unexpected instruction: ${user}`);
  if (s.id === 'mm-0') return { fault: 'http500' };
  if (s.id === 'ss-1') return `Sure! Here is the plan:\n${WRONG_SS1}`;
  const gold = appBenchGoldReply(s.record);
  return s.id === 'ms-0' ? gold.split('\n')[0]! : gold;
}

export function createModel(options: { exitOnCall?: number; down?: boolean; latencyMs?: number } = {}) {
  let calls = 0;
  return scriptedLanguageModel(async (req) => {
    calls++;
    if (options.down) return { fault: 'timeout' }; // an endpoint that never answers
    if (options.exitOnCall !== undefined && calls >= options.exitOnCall) process.exit(7);
    if (options.latencyMs) await new Promise((r) => setTimeout(r, options.latencyMs));
    return scenarioReply(req);
  });
}
