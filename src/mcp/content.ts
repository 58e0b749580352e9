import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { CallToolResult, ContentBlock } from '@modelcontextprotocol/sdk/types.js';
import type { AppCallResult, ContentPart } from '../apps/index.js';
import { type CallError, describeCallError } from '../exec/index.js';

/** Compact JSON that never throws (a cycle or a BigInt falls back to `String`). */
function jsonText(value: unknown): string {
  try {
    return JSON.stringify(value) ?? String(value);
  } catch {
    return String(value);
  }
}

/** One of our content parts as MCP content blocks (an image file is sent inline, base64). */
function partToBlock(part: ContentPart): ContentBlock {
  switch (part.type) {
    case 'text':
      return { type: 'text', text: part.text };
    case 'json':
      return { type: 'text', text: jsonText(part.value) };
    case 'rows':
      return { type: 'text', text: jsonText(part.rows) };
    case 'image':
      try {
        return { type: 'image', data: readFileSync(part.path).toString('base64'), mimeType: part.mediaType };
      } catch (error) {
        return { type: 'text', text: `[image](${part.path}) could not be read: ${(error as Error).message}` };
      }
    case 'file':
      return {
        type: 'resource_link',
        uri: pathToFileURL(part.path).href,
        name: basename(part.path),
        ...(part.mediaType ? { mimeType: part.mediaType } : {}),
      };
  }
}

/**
 * A call's content as an MCP tool result: every part as a content block (JSON as text, images
 * inline, files as links) and, when the call returned one record or one list of rows, the same
 * value as `structuredContent` (`{rows: [...]}` for rows) so typed clients need not parse text.
 */
export function contentToToolResult(parts: readonly ContentPart[]): CallToolResult {
  const structured = parts.filter((p) => p.type === 'json' || p.type === 'rows');
  const result: CallToolResult = { content: parts.map(partToBlock) };
  const only = structured.length === 1 ? structured[0] : undefined;
  if (only?.type === 'rows') result.structuredContent = { rows: only.rows };
  else if (only?.type === 'json') {
    const v = only.value;
    result.structuredContent =
      v !== null && typeof v === 'object' && !Array.isArray(v)
        ? (v as Record<string, unknown>)
        : { value: v };
  }
  return result;
}

/** A refused or failed call as an MCP tool error the model can read (`CODE: message`). */
export function callErrorToToolResult(error: CallError): CallToolResult {
  return {
    isError: true,
    content: [{ type: 'text', text: describeCallError(error) }],
    structuredContent: { error: { code: error.code, message: error.message } },
  };
}

const EXTENSIONS: Record<string, string> = {
  'image/png': 'png',
  'image/jpeg': 'jpg',
  'image/gif': 'gif',
  'image/webp': 'webp',
  'audio/wav': 'wav',
  'audio/mpeg': 'mp3',
  'application/pdf': 'pdf',
};

/** Folders of media files that are still to be deleted when the process exits. */
const liveFolders = new Set<string>();
let exitHookSet = false;

/**
 * Where an import writes the images, audio and binary resources its tools return (our image and
 * file parts are files, never base64 in a text). Made on first use; `remove()` deletes it with
 * everything in it, and the process deletes what is left at exit, so no file outlives the run.
 */
export class MediaFolder {
  private dir: string | undefined;
  private count = 0;

  /** `parent`: where the folder is made (default the OS temp dir). */
  constructor(private readonly parent?: string) {}

  /** Writes base64 data to a new file named after `stem` and returns its path. */
  write(stem: string, data: string, mimeType: string): string {
    if (!this.dir) {
      const parent = this.parent ?? tmpdir();
      mkdirSync(parent, { recursive: true });
      this.dir = mkdtempSync(join(parent, 'apiary-mcp-'));
      liveFolders.add(this.dir);
      if (!exitHookSet) {
        exitHookSet = true;
        process.once('exit', () => {
          for (const dir of liveFolders) rmSync(dir, { recursive: true, force: true });
        });
      }
    }
    const safeStem = stem.replace(/[^A-Za-z0-9_.-]/g, '_');
    const path = join(this.dir, `${safeStem}-${++this.count}.${EXTENSIONS[mimeType] ?? 'bin'}`);
    writeFileSync(path, Buffer.from(data, 'base64'));
    return path;
  }

  /** The folder, once a file was written. */
  get path(): string | undefined {
    return this.dir;
  }

  remove(): void {
    if (!this.dir) return;
    rmSync(this.dir, { recursive: true, force: true });
    liveFolders.delete(this.dir);
    this.dir = undefined;
  }
}

/** MCP content blocks as content parts: media as files, links and text resources as text. */
function blocksToParts(blocks: readonly ContentBlock[], media: MediaFolder, stem: string): ContentPart[] {
  const parts: ContentPart[] = [];
  for (const block of blocks)
    switch (block.type) {
      case 'text':
        parts.push({ type: 'text', text: block.text });
        break;
      case 'image':
        parts.push({
          type: 'image',
          path: media.write(stem, block.data, block.mimeType),
          mediaType: block.mimeType,
        });
        break;
      case 'audio':
        parts.push({
          type: 'file',
          path: media.write(stem, block.data, block.mimeType),
          mediaType: block.mimeType,
        });
        break;
      case 'resource_link':
        parts.push({ type: 'text', text: `[${block.name}](${block.uri})` });
        break;
      case 'resource': {
        const r = block.resource;
        if ('text' in r) parts.push({ type: 'text', text: r.text });
        else {
          const mediaType = r.mimeType ?? 'application/octet-stream';
          const path = media.write(stem, r.blob, mediaType);
          parts.push(
            mediaType.startsWith('image/')
              ? { type: 'image', path, mediaType }
              : { type: 'file', path, mediaType },
          );
        }
        break;
      }
    }
  return parts;
}

/**
 * An imported server's tool result as an app result. Its `structuredContent` (a typed record) is
 * the result when the content has nothing else to show; when it also has images, audio or
 * resources, the result is content parts: the record as JSON, then every block (text; images and
 * audio written to `media`; links as text naming their URI; text resources as text, binary ones
 * as files).
 */
export function toolResultToAppResult(
  result: CallToolResult,
  media: MediaFolder,
  stem: string,
): AppCallResult {
  const blocks = result.content ?? [];
  const structured = result.structuredContent;
  const hasStructured = structured !== null && typeof structured === 'object' && !Array.isArray(structured);
  const onlyText = blocks.every((b) => b.type === 'text');
  if (hasStructured && onlyText) return structured;
  const parts = blocksToParts(blocks, media, stem);
  return {
    content: hasStructured
      ? [{ type: 'json', value: structured }, ...parts.filter((p) => p.type !== 'text')]
      : parts,
  };
}

/** The text of a tool result's text blocks (an error's message). */
export function toolResultText(result: CallToolResult): string {
  return (result.content ?? [])
    .filter((b): b is Extract<ContentBlock, { type: 'text' }> => b.type === 'text')
    .map((b) => b.text)
    .join('\n');
}
