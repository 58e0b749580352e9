import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import $RefParser from '@apidevtools/json-schema-ref-parser';
import { parse as parseYaml } from 'yaml';
import { ApiaryError, downloadFile, InputInvalidError, NotFoundError } from '../shared/index.js';

export type SpecObject = Record<string, unknown>;

/** A spec read and dereferenced: its version family and its document without `$ref`s. */
export interface OpenApiSpec {
  /** What errors name: the path (or URL) it was read from. */
  file: string;
  /** `swagger2` for Swagger 2.0, `openapi3` for OpenAPI 3.0 and 3.1. */
  version: 'swagger2' | 'openapi3';
  doc: SpecObject;
}

export const isRecord = (v: unknown): v is SpecObject =>
  v !== null && typeof v === 'object' && !Array.isArray(v);

/**
 * Parses spec text (YAML or JSON: YAML is a superset) and checks it is an OpenAPI 3.x or Swagger
 * 2.0 document, then resolves every `$ref` (local, and relative files next to `file`). A recursive
 * schema keeps its `$ref` where it recurs, which the parameter conversion stops as an entity.
 */
export async function parseOpenApiSpec(
  text: string,
  file: string,
  /** Where relative `$ref`s resolve from (default `file`; a downloaded spec's local copy). */
  basePath = file,
): Promise<OpenApiSpec> {
  let raw: unknown;
  try {
    raw = parseYaml(text, { maxAliasCount: 1000 });
  } catch (error) {
    throw new InputInvalidError({ file }, `not YAML or JSON: ${(error as Error).message.split('\n')[0]}`, {
      cause: error,
    });
  }
  if (!isRecord(raw)) throw new InputInvalidError({ file, field: '/' }, 'an OpenAPI spec must be an object');
  let version: OpenApiSpec['version'];
  if (typeof raw.openapi === 'string' && /^3\.[01]\./.test(raw.openapi)) version = 'openapi3';
  else if (String(raw.swagger) === '2.0') version = 'swagger2';
  else if ('openapi' in raw)
    throw new InputInvalidError(
      { file, field: '/openapi' },
      `OpenAPI version ${JSON.stringify(raw.openapi)} is not supported (3.0.x or 3.1.x)`,
    );
  else if ('swagger' in raw)
    throw new InputInvalidError(
      { file, field: '/swagger' },
      `Swagger version ${JSON.stringify(raw.swagger)} is not supported (2.0)`,
    );
  else
    throw new InputInvalidError(
      { file, field: '/openapi' },
      'not an OpenAPI spec: it has neither "openapi" (3.x) nor "swagger" ("2.0")',
    );
  if (!isRecord(raw.paths))
    throw new InputInvalidError({ file, field: '/paths' }, '"paths" must be an object');
  let doc: SpecObject;
  try {
    doc = (await $RefParser.dereference(resolve(basePath), raw, {
      dereference: { circular: 'ignore' },
      resolve: { http: false },
    })) as SpecObject;
  } catch (error) {
    throw new InputInvalidError({ file }, `a "$ref" cannot be resolved: ${(error as Error).message}`, {
      cause: error,
    });
  }
  return { file, version, doc };
}

/**
 * Reads a spec file (YAML or JSON), or downloads it first when `source` is an http(s) URL (with
 * the project's download helper: timeout, status checked, no partial file).
 */
export async function readOpenApiSpec(source: string): Promise<OpenApiSpec> {
  if (/^https?:\/\//i.test(source)) {
    const dir = mkdtempSync(join(tmpdir(), 'apiary-openapi-'));
    try {
      const local = join(dir, 'spec');
      await downloadFile(source, local);
      return await parseOpenApiSpec(readFileSync(local, 'utf8'), source, local);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }
  const file = source;
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') throw new NotFoundError('file', file);
    throw new ApiaryError('INPUT_INVALID', `${file}: cannot read: ${(error as Error).message}`, {
      cause: error,
    });
  }
  return parseOpenApiSpec(text, file);
}
