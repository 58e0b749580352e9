import { describe, expect, it } from 'vitest';
import { ApiaryError, InputInvalidError } from '../shared/index.js';
import { resolveModelSetup } from './resolve-model.js';

function deps(env: Record<string, string>, files: Record<string, string> = {}) {
  return {
    env,
    cwd: '/proj',
    exists: (p: string) => p in files,
    readText: (p: string) => files[p] ?? '',
  };
}

describe('resolveModelSetup', () => {
  it('returns undefined when nothing is configured', () => {
    expect(resolveModelSetup({}, deps({}))).toBeUndefined();
  });

  it('flags win over env, env over the config file', () => {
    const files = {
      '/proj/apiary.config.json': JSON.stringify({
        baseURL: 'http://file:1/v1',
        model: 'file-model',
        apiKeyEnv: 'FILE_KEY',
      }),
    };
    const env = { APIARY_MODEL: 'env-model', FILE_KEY: 'k1', OPENAI_API_KEY: 'k2' };
    const fromEnvAndFile = resolveModelSetup({}, deps(env, files));
    expect(fromEnvAndFile?.modelId).toBe('env-model');
    expect(fromEnvAndFile?.baseURL).toBe('http://file:1/v1');
    expect(fromEnvAndFile?.apiKeySource).toBe('FILE_KEY');
    const fromFlags = resolveModelSetup(
      { model: 'flag-model', baseURL: 'http://flag:2/v1/' },
      deps(env, files),
    );
    expect(fromFlags?.modelId).toBe('flag-model');
    expect(fromFlags?.baseURL).toBe('http://flag:2/v1');
    expect(fromFlags?.model.modelId).toBe('flag-model');
  });

  it('uses APIARY_API_KEY, then OPENAI_API_KEY, and the default OpenAI URL', () => {
    const a = resolveModelSetup({}, deps({ APIARY_MODEL: 'm', APIARY_API_KEY: 'a', OPENAI_API_KEY: 'o' }));
    expect(a?.apiKeySource).toBe('APIARY_API_KEY');
    expect(a?.baseURL).toBe('https://api.openai.com/v1');
    const o = resolveModelSetup({}, deps({ APIARY_MODEL: 'm', OPENAI_API_KEY: 'o' }));
    expect(o?.apiKeySource).toBe('OPENAI_API_KEY');
  });

  it('applies no sampling defaults of its own (the task does) and accepts a top_p override', () => {
    const d = resolveModelSetup({}, deps({ APIARY_MODEL: 'm' }));
    expect(d?.sampling).toEqual({});
    const flags = resolveModelSetup({ sampling: { temperature: 0.7 } }, deps({ APIARY_MODEL: 'm' }));
    expect(flags?.sampling).toEqual({ temperature: 0.7 });
    const omit = resolveModelSetup({}, deps({ APIARY_MODEL: 'm', APIARY_TOP_P: 'omit' }));
    expect(omit?.sampling.topP).toBeNull();
    const files = { '/proj/apiary.config.json': JSON.stringify({ model: 'm', sampling: { topP: 1 } }) };
    expect(resolveModelSetup({}, deps({}, files))?.sampling.topP).toBe(1);
  });

  it('reports bad configuration clearly', () => {
    expect(() => resolveModelSetup({ baseURL: 'http://x/v1' }, deps({}))).toThrow(ApiaryError);
    expect(() => resolveModelSetup({ model: 'm', apiKeyEnv: 'MISSING' }, deps({}))).toThrow(
      /MISSING is not set/,
    );
    expect(() => resolveModelSetup({ configFile: 'nope.json' }, deps({}))).toThrow(/config file not found/);
    const bad = { '/proj/apiary.config.json': JSON.stringify({ model: 'm', sampling: { topP: 3 } }) };
    const err = (() => {
      try {
        resolveModelSetup({}, deps({}, bad));
      } catch (e) {
        return e;
      }
    })();
    expect(err).toBeInstanceOf(InputInvalidError);
    expect((err as InputInvalidError).field).toBe('sampling.topP');
  });
});
