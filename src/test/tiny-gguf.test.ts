import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { getLlama } from 'node-llama-cpp';
import { describe, expect, it } from 'vitest';
import { tinyGgufBytes, writeTinyGguf } from './tiny-gguf.js';

describe('tinyGgufBytes', () => {
  it('writes a GGUF v3 header with 21 tensors (3 + 9 per block) and 19 metadata keys', () => {
    const bytes = tinyGgufBytes();
    expect(bytes.subarray(0, 4).toString('ascii')).toBe('GGUF');
    expect(bytes.readUInt32LE(4)).toBe(3);
    expect(bytes.readBigUInt64LE(8)).toBe(21n);
    expect(bytes.readBigUInt64LE(16)).toBe(19n);
    expect(bytes.length % 32).toBe(0);
  });

  it('is deterministic per seed', () => {
    expect(tinyGgufBytes({ seed: 7 }).equals(tinyGgufBytes({ seed: 7 }))).toBe(true);
    expect(tinyGgufBytes({ seed: 7 }).equals(tinyGgufBytes({ seed: 8 }))).toBe(false);
  });

  it('loads in llama.cpp, whose tokenizer spells text and newlines back exactly', async () => {
    const path = writeTinyGguf(join(mkdtempSync(join(tmpdir(), 'apiary-gguf-')), 'tiny.gguf'));
    const llama = await getLlama({ gpu: false, build: 'never' });
    const model = await llama.loadModel({ modelPath: path });
    try {
      // 3 special + 256 bytes + "▁" + 94 printable characters + 53 longer pieces
      expect(model.fileInfo.metadata.tokenizer.ggml.tokens.length).toBe(3 + 256 + 1 + 94 + 53);
      expect(model.fileInsights.totalLayers).toBe(3); // 2 blocks + the output layer
      const text = 'Thought: call {"city": "Zurich", "n": 2}\nAction: x';
      expect(model.detokenize(model.tokenize(text))).toBe(text);
    } finally {
      await model.dispose();
    }
  });
});
