import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import { writeTinyGguf } from '../../test/index.js';

// A machine without the optional peer: the import fails as Node fails it for a missing package.
vi.mock('node-llama-cpp', () => {
  throw Object.assign(new Error("Cannot find package 'node-llama-cpp'"), { code: 'ERR_MODULE_NOT_FOUND' });
});

describe('a gguf: model without node-llama-cpp installed', () => {
  it('is a USAGE error that prints the install command', async () => {
    const { createLocalModel } = await import('./local-model.js');
    const path = join(mkdtempSync(join(tmpdir(), 'apiary-no-llama-')), 'tiny.gguf');
    writeTinyGguf(path, { seed: 1 });
    const error = await createLocalModel({ path })
      .load()
      .catch((e: unknown) => e);
    expect(error).toMatchObject({
      code: 'USAGE',
      message:
        'gguf: models run in process on node-llama-cpp, which is not installed: run `npm install node-llama-cpp` ' +
        '(or, lean, `npm install --omit=optional node-llama-cpp @node-llama-cpp/linux-x64`), or serve the model ' +
        'with llama.cpp / Ollama and pass --base-url',
    });
  });
});
