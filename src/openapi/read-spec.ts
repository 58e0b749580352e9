import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import $RefParser from '@apidevtools/json-schema-ref-parser';
import { downloadFile, InputInvalidError } from '../shared/index.js';
import { MAX_SPEC_FILE_BYTES, parseSpecText, readBounded, SpecRefReader } from './spec-files.js';

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

/** Where a spec's `$ref`s may read files: `parseOpenApiSpec`'s options. */
export interface ParseOpenApiSpecOptions {
  /**
   * Where relative `$ref`s resolve from (default `file`). Files a `$ref` reads must lie in this
   * path's folder or below, real paths compared (docs/containment.md "OpenAPI specs").
   */
  basePath?: string;
  /** `false` refuses every `$ref` to a file: a spec downloaded from a URL may only refer inside itself. */
  fileRefs?: boolean;
}

/**
 * Parses spec text (YAML or JSON: YAML is a superset) and checks it is an OpenAPI 3.x or Swagger
 * 2.0 document, then resolves every `$ref`: inside the document, and files in the spec's own
 * folder (never a URL, never a file elsewhere). A recursive schema keeps its `$ref` where it
 * recurs, which the parameter conversion stops as an entity.
 */
export async function parseOpenApiSpec(
  text: string,
  file: string,
  options: ParseOpenApiSpecOptions = {},
): Promise<OpenApiSpec> {
  const raw = parseSpecText(text, file);
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
  const specPath = resolve(options.basePath ?? file);
  const refs = new SpecRefReader(
    options.fileRefs === false
      ? { files: 'none', url: file }
      : { files: 'confined', folder: dirname(specPath) },
    file,
    specPath,
    Buffer.byteLength(text),
  );
  let doc: SpecObject;
  try {
    doc = (await $RefParser.dereference(specPath, raw, {
      dereference: { circular: 'ignore' },
      // the library's own readers (any file, any URL) are off: every external $ref goes through ours
      resolve: { file: false, http: false, apiary: refs.resolver },
      parse: { json: false, yaml: false, text: false, binary: false, apiary: refs.parser },
    })) as SpecObject;
  } catch (error) {
    if (refs.refusal) throw refs.refusal;
    throw new InputInvalidError({ file }, `a "$ref" cannot be resolved: ${(error as Error).message}`, {
      cause: error,
    });
  }
  return { file, version, doc };
}

/**
 * Reads a spec file (YAML or JSON) of at most `MAX_SPEC_FILE_BYTES`, or downloads it first when
 * `source` is an http(s) URL (with the project's download helper: timeout, status checked, size
 * bounded, no partial file); a downloaded spec may not refer to files.
 */
export async function readOpenApiSpec(source: string): Promise<OpenApiSpec> {
  if (/^https?:\/\//i.test(source)) {
    const dir = mkdtempSync(join(tmpdir(), 'apiary-openapi-'));
    try {
      const local = join(dir, 'spec');
      const { content } = await downloadFile(source, local, { maxBytes: MAX_SPEC_FILE_BYTES });
      return await parseOpenApiSpec(content.toString('utf8'), source, { basePath: local, fileRefs: false });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }
  const text = readBounded(source, source, MAX_SPEC_FILE_BYTES, false).toString('utf8');
  return parseOpenApiSpec(text, source);
}
