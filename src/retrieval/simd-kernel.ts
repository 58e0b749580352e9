/**
 * Exact dot products of one query against every row of a matrix, in a tiny hand-assembled
 * WebAssembly module using 128-bit SIMD (f32x4): 4 multiply-adds per instruction, float32
 * accumulation. Used by `VectorIndex` when the dimension is a multiple of 4 and the runtime
 * supports Wasm SIMD (Node ≥ 16.4); otherwise the plain JavaScript loop is used.
 *
 * The module (WAT equivalent):
 *   (func (export "scores") (param $data i32) (param $q i32) (param $out i32) (param $n i32) (param $d i32)
 *     (local $i i32) (local $j i32) (local $dbytes i32) (local $acc v128)
 *     dbytes = d*4
 *     for i in 0..n: acc = 0; for j in 0..dbytes step 16: acc += load(data+j) * load(q+j)
 *                    out[i] = acc[0]+acc[1]+acc[2]+acc[3]; data += dbytes)
 *   (memory (export "memory") 1)
 */
const u = (...b: number[]) => b;
const lget = (i: number) => u(0x20, i);
const lset = (i: number) => u(0x21, i);
const i32c = (v: number) => u(0x41, v); // small non-negative constants (< 64)
const simd = (op: number) => (op < 128 ? u(0xfd, op) : u(0xfd, (op & 0x7f) | 0x80, op >> 7));
const V128_LOAD = [...simd(0x00), 0x00, 0x00];
const F32X4_ADD = simd(0xe4);
const F32X4_MUL = simd(0xe6);
const lane = (k: number) => [...simd(0x1f), k];

function moduleBytes(): Uint8Array {
  const body = [
    ...u(0x02, 0x03, 0x7f, 0x01, 0x7b), // locals: 3 × i32 (i, j, dbytes), 1 × v128 (acc)
    ...lget(4),
    ...i32c(4),
    0x6c,
    ...lset(7),
    0x02,
    0x40,
    0x03,
    0x40, // block, loop (rows)
    ...lget(5),
    ...lget(3),
    0x4f,
    0x0d,
    0x01, // if i >= n break
    ...simd(0x0c),
    ...new Array(16).fill(0),
    ...lset(8), // acc = 0
    ...i32c(0),
    ...lset(6),
    0x02,
    0x40,
    0x03,
    0x40, // block, loop (columns)
    ...lget(6),
    ...lget(7),
    0x4f,
    0x0d,
    0x01,
    ...lget(8),
    ...lget(0),
    ...lget(6),
    0x6a,
    ...V128_LOAD,
    ...lget(1),
    ...lget(6),
    0x6a,
    ...V128_LOAD,
    ...F32X4_MUL,
    ...F32X4_ADD,
    ...lset(8),
    ...lget(6),
    ...i32c(16),
    0x6a,
    ...lset(6),
    0x0c,
    0x00,
    0x0b,
    0x0b, // br columns; end loop; end block
    ...lget(2),
    ...lget(5),
    ...i32c(4),
    0x6c,
    0x6a, // address out + i*4
    ...lget(8),
    ...lane(0),
    ...lget(8),
    ...lane(1),
    0x92,
    ...lget(8),
    ...lane(2),
    0x92,
    ...lget(8),
    ...lane(3),
    0x92,
    0x38,
    0x02,
    0x00, // f32.store
    ...lget(0),
    ...lget(7),
    0x6a,
    ...lset(0),
    ...lget(5),
    ...i32c(1),
    0x6a,
    ...lset(5),
    0x0c,
    0x00,
    0x0b,
    0x0b, // br rows; end loop; end block
    0x0b, // end function
  ];
  const section = (id: number, content: number[]) => [id, ...leb(content.length), ...content];
  const name = (s: string) => [s.length, ...Array.from(s, (c) => c.charCodeAt(0))];
  return Uint8Array.from([
    0x00,
    0x61,
    0x73,
    0x6d,
    0x01,
    0x00,
    0x00,
    0x00,
    ...section(1, [0x01, 0x60, 0x05, 0x7f, 0x7f, 0x7f, 0x7f, 0x7f, 0x00]),
    ...section(3, [0x01, 0x00]),
    ...section(5, [0x01, 0x00, 0x01]),
    ...section(7, [0x02, ...name('scores'), 0x00, 0x00, ...name('memory'), 0x02, 0x00]),
    ...section(10, [0x01, ...leb(body.length), ...body]),
  ]);
}

function leb(n: number): number[] {
  const out: number[] = [];
  let v = n;
  do {
    let b = v & 0x7f;
    v >>>= 7;
    if (v) b |= 0x80;
    out.push(b);
  } while (v);
  return out;
}

/** The part of the WebAssembly JS API used here (the project's `lib` has no DOM typings). */
interface WasmApi {
  validate(bytes: Uint8Array): boolean;
  Module: new (bytes: Uint8Array) => object;
  Instance: new (module: object, imports: object) => { exports: Record<string, unknown> };
}
interface WasmMemory {
  readonly buffer: ArrayBuffer;
  grow(pages: number): number;
}
const wasm = (globalThis as unknown as { WebAssembly?: WasmApi }).WebAssembly;

let compiled: object | null | undefined;
function wasmModule(): object | null {
  if (compiled !== undefined) return compiled;
  try {
    const bytes = moduleBytes();
    compiled = wasm?.validate(bytes) ? new wasm.Module(bytes) : null;
  } catch {
    compiled = null;
  }
  return compiled;
}

export interface DotKernel {
  /** Dot product of `query` with every row, in row order. */
  scoreAll(query: Float32Array): Float32Array;
}

/**
 * A SIMD kernel holding its own copy of `data` (rows × dim floats) in Wasm memory, or undefined
 * when the dimension is not a multiple of 4 or Wasm SIMD is unavailable.
 */
export function createSimdKernel(data: Float32Array, dim: number): DotKernel | undefined {
  if (dim % 4 !== 0 || dim === 0) return undefined;
  const mod = wasmModule();
  if (!mod || !wasm) return undefined;
  const rows = data.length / dim;
  const bytes = data.byteLength + dim * 4 + rows * 4 + 64;
  const instance = new wasm.Instance(mod, {});
  const memory = instance.exports.memory as WasmMemory;
  const scores = instance.exports.scores as (d: number, q: number, o: number, n: number, dd: number) => void;
  const pages = Math.ceil(bytes / 65536);
  if (pages > 1) memory.grow(pages - 1);
  const dataAt = 0;
  const qAt = data.byteLength; // multiple of 16 bytes because dim % 4 === 0
  const outAt = qAt + dim * 4;
  new Float32Array(memory.buffer, dataAt, data.length).set(data);
  const q = new Float32Array(memory.buffer, qAt, dim);
  const out = new Float32Array(memory.buffer, outAt, rows);
  return {
    scoreAll(query: Float32Array): Float32Array {
      q.set(query);
      scores(dataAt, qAt, outAt, rows, dim);
      return out.slice();
    },
  };
}

/** Dot products against a block of rows that changes often (`load`), in one reused Wasm instance. */
export interface BlockDotKernel {
  /** Copies `rows` (n × dim floats) into the kernel, replacing the previous block. */
  load(rows: Float32Array): void;
  /** Dot product of `query` with every row of the loaded block, in row order. */
  scoreAll(query: Float32Array): Float32Array;
}

/**
 * A block kernel for `dim` (a multiple of 4), or undefined without Wasm SIMD. One instance and
 * one memory serve every block, growing when a block is larger: a fresh instance per block (per
 * query) would allocate a Wasm memory each time, and those reservations cost long GC pauses.
 */
export function createBlockDotKernel(dim: number): BlockDotKernel | undefined {
  if (dim % 4 !== 0 || dim === 0) return undefined;
  const mod = wasmModule();
  if (!mod || !wasm) return undefined;
  const instance = new wasm.Instance(mod, {});
  const memory = instance.exports.memory as WasmMemory;
  const scores = instance.exports.scores as (d: number, q: number, o: number, n: number, dd: number) => void;
  let rows = 0;
  return {
    load(block: Float32Array): void {
      rows = block.length / dim;
      const bytes = block.byteLength + dim * 4 + rows * 4 + 64;
      const pages = Math.ceil(bytes / 65536) - memory.buffer.byteLength / 65536;
      if (pages > 0) memory.grow(pages);
      new Float32Array(memory.buffer, 0, block.length).set(block);
    },
    scoreAll(query: Float32Array): Float32Array {
      const qAt = rows * dim * 4;
      const outAt = qAt + dim * 4;
      new Float32Array(memory.buffer, qAt, dim).set(query);
      scores(0, qAt, outAt, rows, dim);
      return new Float32Array(memory.buffer, outAt, rows).slice();
    },
  };
}
