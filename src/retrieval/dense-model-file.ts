import { readFileSync } from 'node:fs';
import { z } from 'zod';
import { align8, headerError, readBinaryHeader, writeBinaryFile } from './binary-file.js';
import type { DenseModel } from './dense-encoder.js';

/**
 * Dense encoder files (`.apdm`): the 8 bytes "APDM0001", u32 LE header length, the JSON header
 * (config, vocabulary, info, array lengths), zero padding to 8 bytes, then the word weights and
 * the row table as little-endian float32.
 */
const DENSE_MODEL_VERSION = 1;
const MAGIC = 'APDM0001';

export const denseConfigSchema = z.object({
  dim: z.number().int().min(1),
  buckets: z.number().int().min(1),
  minN: z.number().int().min(1),
  maxN: z.number().int().min(1),
  toolContext: z.number().min(0).optional(),
  wordRowShare: z.number().min(0).max(1).optional(),
  sentenceWeight: z.number().min(0).optional(),
  wordMatchWeight: z.number().min(0).optional(),
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
  const pad = new Uint8Array(align8(m.weights.byteLength) - m.weights.byteLength);
  writeBinaryFile(path, MAGIC, header, [bytes(m.weights), pad, bytes(m.table)]);
}

export function loadDenseModel(path: string): DenseModel {
  const buf = readFileSync(path);
  const bad = (problem: string, field?: string) => headerError(path, problem, field);
  const { raw, base } = readBinaryHeader(path, buf, MAGIC, {
    notA: 'an apiary dense encoder',
    fix: 'train one with `apiary retrieve train --retriever dense`',
  });
  const parsed = headerSchema.safeParse(raw);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw bad(issue?.message ?? 'invalid header', issue?.path.join('.'));
  }
  const h = parsed.data;
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
