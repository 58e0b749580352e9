import { writeFileSync } from 'node:fs';
import { mulberry32 } from '../shared/index.js';

/**
 * A deterministic tiny llama model in GGUF: random weights, a ~400-token SentencePiece-style vocabulary that spells
 * any ASCII text, small enough (~0.5 MB) to write in a test and load in a fraction of a second. Its output is noise;
 * tests use it to drive the local-model path (loading, tokenising, grammar-constrained decoding) end to end without
 * downloading a real model.
 *
 * Format: GGUF v3 (magic, version, tensor and metadata counts, key/values, tensor infos, 32-byte aligned F32 data).
 */
export interface TinyGgufOptions {
  /** Seed of the weights (default 1): the same seed writes the same bytes. */
  seed?: number;
  /** Transformer blocks (default 2). */
  layers?: number;
  /** Hidden size (default 64); a multiple of `heads`. */
  embedding?: number;
  /** Attention heads (default 4). */
  heads?: number;
  /** Context length the model declares (default 4096). */
  contextLength?: number;
}

enum ValueType {
  Uint32 = 4,
  Int32 = 5,
  Float32 = 6,
  String = 8,
  Array = 9,
}

/** SentencePiece token types, as llama.cpp reads `tokenizer.ggml.token_type`. */
enum TokenType {
  Normal = 1,
  Unknown = 2,
  Control = 3,
  Unused = 5,
  Byte = 6,
}

const ALIGNMENT = 32;
const SPACE = '\u2581'; // SentencePiece's word-boundary mark: "▁"

/** Pieces beyond single characters, so common JSON and prose tokenise into fewer tokens. */
const MULTI_CHAR_PIECES = [
  '{"',
  '"}',
  '":',
  '",',
  '":"',
  '","',
  '[{',
  '}]',
  '},',
  'true',
  'false',
  'null',
  'name',
  'arguments',
  'action',
  'Action',
  'Thought',
  'Input',
  'Final',
  'Answer',
  'the',
  'ing',
  'ion',
  'er',
  'ed',
  'es',
  'at',
  'on',
  'an',
  'in',
  `${SPACE}the`,
  `${SPACE}a`,
  `${SPACE}to`,
  `${SPACE}of`,
  `${SPACE}and`,
  `${SPACE}is`,
  `${SPACE}in`,
  `${SPACE}for`,
  'date',
  'time',
  'city',
  'type',
  'id',
  'api',
  'app',
  'user',
  'tool',
  'call',
  'ment',
  'tion',
  'ly',
  'al',
  're',
];

interface Vocabulary {
  tokens: string[];
  scores: number[];
  types: number[];
}

function tinyVocabulary(): Vocabulary {
  const tokens = ['<unk>', '<s>', '</s>'];
  const types: number[] = [TokenType.Unknown, TokenType.Control, TokenType.Control];
  for (let byte = 0; byte < 256; byte++) {
    tokens.push(`<0x${byte.toString(16).toUpperCase().padStart(2, '0')}>`);
    // A lone byte ≥ 0x80 is half a UTF-8 character: a random model would emit invalid text with it.
    types.push(byte < 0x80 ? TokenType.Byte : TokenType.Unused);
  }
  tokens.push(SPACE);
  types.push(TokenType.Normal);
  for (let code = 0x21; code < 0x7f; code++) {
    tokens.push(String.fromCharCode(code));
    types.push(TokenType.Normal);
  }
  for (const piece of MULTI_CHAR_PIECES) {
    tokens.push(piece);
    types.push(TokenType.Normal);
  }
  // Longer pieces score higher, so the tokeniser prefers them when they match.
  const scores = tokens.map((token, i) =>
    types[i] === TokenType.Normal ? token.length * 10 - i / 1000 : -1e4,
  );
  return { tokens, scores, types };
}

class GgufBuffer {
  private readonly chunks: Buffer[] = [];
  length = 0;

  private push(chunk: Buffer): void {
    this.chunks.push(chunk);
    this.length += chunk.length;
  }
  u32(value: number): void {
    const b = Buffer.alloc(4);
    b.writeUInt32LE(value);
    this.push(b);
  }
  i32(value: number): void {
    const b = Buffer.alloc(4);
    b.writeInt32LE(value);
    this.push(b);
  }
  u64(value: number): void {
    const b = Buffer.alloc(8);
    b.writeBigUInt64LE(BigInt(value));
    this.push(b);
  }
  f32(value: number): void {
    const b = Buffer.alloc(4);
    b.writeFloatLE(value);
    this.push(b);
  }
  string(value: string): void {
    const bytes = Buffer.from(value, 'utf8');
    this.u64(bytes.length);
    this.push(bytes);
  }
  bytes(value: Buffer): void {
    this.push(value);
  }
  padTo(alignment: number): void {
    const pad = (alignment - (this.length % alignment)) % alignment;
    if (pad > 0) this.push(Buffer.alloc(pad));
  }
  toBuffer(): Buffer {
    return Buffer.concat(this.chunks);
  }
}

type MetadataValue =
  | { type: 'u32'; value: number }
  | { type: 'f32'; value: number }
  | { type: 'string'; value: string }
  | { type: 'strings'; value: string[] }
  | { type: 'f32s'; value: number[] }
  | { type: 'i32s'; value: number[] };

function writeMetadata(out: GgufBuffer, key: string, entry: MetadataValue): void {
  out.string(key);
  switch (entry.type) {
    case 'u32':
      out.u32(ValueType.Uint32);
      out.u32(entry.value);
      return;
    case 'f32':
      out.u32(ValueType.Float32);
      out.f32(entry.value);
      return;
    case 'string':
      out.u32(ValueType.String);
      out.string(entry.value);
      return;
    case 'strings':
      out.u32(ValueType.Array);
      out.u32(ValueType.String);
      out.u64(entry.value.length);
      for (const s of entry.value) out.string(s);
      return;
    case 'f32s':
      out.u32(ValueType.Array);
      out.u32(ValueType.Float32);
      out.u64(entry.value.length);
      for (const v of entry.value) out.f32(v);
      return;
    case 'i32s':
      out.u32(ValueType.Array);
      out.u32(ValueType.Int32);
      out.u64(entry.value.length);
      for (const v of entry.value) out.i32(v);
      return;
  }
}

interface Tensor {
  name: string;
  /** GGUF order: the fastest-varying dimension first. */
  dims: number[];
  data: Float32Array;
}

/** The bytes of a tiny random llama GGUF (see {@link TinyGgufOptions}). */
export function tinyGgufBytes(options: TinyGgufOptions = {}): Buffer {
  const layers = options.layers ?? 2;
  const embedding = options.embedding ?? 64;
  const heads = options.heads ?? 4;
  const feedForward = embedding * 2;
  if (embedding % heads !== 0) throw new Error(`embedding ${embedding} is not a multiple of heads ${heads}`);
  const vocab = tinyVocabulary();
  const random = mulberry32(options.seed ?? 1);
  const weights = (rows: number, cols: number): Tensor['data'] => {
    const data = new Float32Array(rows * cols);
    const scale = 1 / Math.sqrt(cols);
    for (let i = 0; i < data.length; i++) data[i] = (random() * 2 - 1) * scale;
    return data;
  };
  const ones = (n: number): Tensor['data'] => new Float32Array(n).fill(1);
  const n = vocab.tokens.length;
  const tensors: Tensor[] = [
    { name: 'token_embd.weight', dims: [embedding, n], data: weights(n, embedding) },
    { name: 'output_norm.weight', dims: [embedding], data: ones(embedding) },
    { name: 'output.weight', dims: [embedding, n], data: weights(n, embedding) },
  ];
  for (let layer = 0; layer < layers; layer++) {
    const blk = (name: string) => `blk.${layer}.${name}.weight`;
    tensors.push(
      { name: blk('attn_norm'), dims: [embedding], data: ones(embedding) },
      { name: blk('attn_q'), dims: [embedding, embedding], data: weights(embedding, embedding) },
      { name: blk('attn_k'), dims: [embedding, embedding], data: weights(embedding, embedding) },
      { name: blk('attn_v'), dims: [embedding, embedding], data: weights(embedding, embedding) },
      { name: blk('attn_output'), dims: [embedding, embedding], data: weights(embedding, embedding) },
      { name: blk('ffn_norm'), dims: [embedding], data: ones(embedding) },
      { name: blk('ffn_gate'), dims: [embedding, feedForward], data: weights(feedForward, embedding) },
      { name: blk('ffn_up'), dims: [embedding, feedForward], data: weights(feedForward, embedding) },
      { name: blk('ffn_down'), dims: [feedForward, embedding], data: weights(embedding, feedForward) },
    );
  }

  const metadata: Array<[string, MetadataValue]> = [
    ['general.architecture', { type: 'string', value: 'llama' }],
    ['general.name', { type: 'string', value: 'apiary-tiny-random' }],
    ['general.alignment', { type: 'u32', value: ALIGNMENT }],
    ['general.file_type', { type: 'u32', value: 0 }], // all F32
    ['llama.context_length', { type: 'u32', value: options.contextLength ?? 4096 }],
    ['llama.embedding_length', { type: 'u32', value: embedding }],
    ['llama.block_count', { type: 'u32', value: layers }],
    ['llama.feed_forward_length', { type: 'u32', value: feedForward }],
    ['llama.rope.dimension_count', { type: 'u32', value: embedding / heads }],
    ['llama.attention.head_count', { type: 'u32', value: heads }],
    ['llama.attention.head_count_kv', { type: 'u32', value: heads }],
    ['llama.attention.layer_norm_rms_epsilon', { type: 'f32', value: 1e-5 }],
    ['tokenizer.ggml.model', { type: 'string', value: 'llama' }],
    ['tokenizer.ggml.tokens', { type: 'strings', value: vocab.tokens }],
    ['tokenizer.ggml.scores', { type: 'f32s', value: vocab.scores }],
    ['tokenizer.ggml.token_type', { type: 'i32s', value: vocab.types }],
    ['tokenizer.ggml.unknown_token_id', { type: 'u32', value: 0 }],
    ['tokenizer.ggml.bos_token_id', { type: 'u32', value: 1 }],
    ['tokenizer.ggml.eos_token_id', { type: 'u32', value: 2 }],
  ];

  const out = new GgufBuffer();
  out.bytes(Buffer.from('GGUF', 'ascii'));
  out.u32(3);
  out.u64(tensors.length);
  out.u64(metadata.length);
  for (const [key, value] of metadata) writeMetadata(out, key, value);
  let offset = 0;
  for (const tensor of tensors) {
    out.string(tensor.name);
    out.u32(tensor.dims.length);
    for (const dim of tensor.dims) out.u64(dim);
    out.u32(0); // GGML_TYPE_F32
    out.u64(offset);
    offset += Math.ceil(tensor.data.byteLength / ALIGNMENT) * ALIGNMENT;
  }
  out.padTo(ALIGNMENT);
  for (const tensor of tensors) {
    out.bytes(Buffer.from(tensor.data.buffer, tensor.data.byteOffset, tensor.data.byteLength));
    out.padTo(ALIGNMENT);
  }
  return out.toBuffer();
}

/** Writes {@link tinyGgufBytes} to `path` and returns the path. */
export function writeTinyGguf(path: string, options: TinyGgufOptions = {}): string {
  writeFileSync(path, tinyGgufBytes(options));
  return path;
}
