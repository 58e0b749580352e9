import { closeSync, openSync, readFileSync, renameSync, writeSync } from 'node:fs';
import { z } from 'zod';
import { InputInvalidError } from '../shared/index.js';
import type { DenseModel } from './dense-encoder.js';

/**
 * Dense encoder files (`.apdm`): the 8 bytes "APDM0001", u32 LE header length, the JSON header
 * (config, vocabulary, info, array lengths), zero padding to 8 bytes, then the word weights and
 * the row table as little-endian float32.
 */
export const DENSE_MODEL_VERSION = 1;
const MAGIC = 'APDM0001';

export const denseConfigSchema = z.object({
  dim: z.number().int().min(1),
  buckets: z.number().int().min(1),
  minN: z.number().int().min(1),
  maxN: z.number().int().min(1),
});
const headerSchema = z.object({
  format: z.literal('apiary-dense-encoder'),
  version: z.literal(DENSE_MODEL_VERSION),
  config: denseConfigSchema,
  vocabulary: z.array(z.string()),
  info: z.record(z.string(), z.unknown()),
  weights: z.number().int().min(0),
  table: z.number().int().min(0),
});

const align8 = (n: number) => (n + 7) & ~7;
const bytes = (a: Float32Array) => new Uint8Array(a.buffer, a.byteOffset, a.byteLength);

/** Checks that a model's arrays fit its config and vocabulary (a bad file must not give wrong rankings). */
export function denseModelProblem(m: DenseModel): string | undefined {
  if (m.weights.length !== m.vocabulary.length + 1)
    return `${m.weights.length} word weights for ${m.vocabulary.length} words (+1 unknown)`;
  const rows = m.vocabulary.length + m.config.buckets;
  if (m.table.length !== rows * m.config.dim)
    return `table has ${m.table.length} floats, ${rows} rows × ${m.config.dim} need ${rows * m.config.dim}`;
  return undefined;
}

export function saveDenseModel(path: string, m: DenseModel): void {
  const header = {
    format: 'apiary-dense-encoder',
    version: DENSE_MODEL_VERSION,
    config: m.config,
    vocabulary: m.vocabulary,
    info: m.info,
    weights: m.weights.length,
    table: m.table.length,
  };
  const json = Buffer.from(JSON.stringify(header), 'utf8');
  const prefix = Buffer.alloc(align8(12 + json.byteLength));
  prefix.write(MAGIC, 0, 'latin1');
  prefix.writeUInt32LE(json.byteLength, 8);
  json.copy(prefix, 12);
  const tmp = `${path}.${process.pid}.tmp`;
  const fd = openSync(tmp, 'w');
  try {
    writeSync(fd, prefix);
    writeSync(fd, bytes(m.weights));
    writeSync(fd, new Uint8Array(align8(m.weights.byteLength) - m.weights.byteLength));
    writeSync(fd, bytes(m.table));
  } finally {
    closeSync(fd);
  }
  renameSync(tmp, path);
}

export function loadDenseModel(path: string): DenseModel {
  const buf = readFileSync(path);
  const bad = (problem: string, field?: string) =>
    new InputInvalidError({ file: path, record: 'header', ...(field ? { field } : {}) }, problem);
  if (buf.byteLength < 12 || buf.toString('latin1', 0, 8) !== MAGIC)
    throw bad(
      'not an apiary dense encoder (bad magic bytes); train one with `apiary retrieve train --retriever dense`',
    );
  const len = buf.readUInt32LE(8);
  if (12 + len > buf.byteLength) throw bad('truncated header');
  let raw: unknown;
  try {
    raw = JSON.parse(buf.toString('utf8', 12, 12 + len));
  } catch (e) {
    throw bad(`header is not JSON (${(e as Error).message})`);
  }
  const parsed = headerSchema.safeParse(raw);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw bad(issue?.message ?? 'invalid header', issue?.path.join('.'));
  }
  const h = parsed.data;
  const base = align8(12 + len);
  const tableAt = base + align8(h.weights * 4);
  if (tableAt + h.table * 4 > buf.byteLength)
    throw bad(`file is truncated (${buf.byteLength} bytes)`, 'table');
  // copies: the file buffer's offset need not be 4-byte aligned
  const f32 = (at: number, n: number) =>
    new Float32Array(buf.buffer.slice(buf.byteOffset + at, buf.byteOffset + at + n * 4));
  const model: DenseModel = {
    config: h.config,
    vocabulary: h.vocabulary,
    info: h.info,
    weights: f32(base, h.weights),
    table: f32(tableAt, h.table),
  };
  const problem = denseModelProblem(model);
  if (problem) throw bad(problem, 'table');
  return model;
}
