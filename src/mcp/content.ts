import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
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
};

export interface ImportedResultOptions {
  /** Where inline images and audio are written (our image parts are files). */
  outputDir: string;
  /** Names the written files (unique per call). */
  fileStem: string;
}

/**
 * An imported server's tool result as an app result: its `structuredContent` when it has one (a
 * typed record), otherwise its content blocks as parts (text; images and audio written to files;
 * links and embedded resources as text naming their URI).
 */
export function toolResultToAppResult(result: CallToolResult, opts: ImportedResultOptions): AppCallResult {
  const structured = result.structuredContent;
  if (structured && typeof structured === 'object' && !Array.isArray(structured)) return structured;
  const parts: ContentPart[] = [];
  let n = 0;
  const writeFile = (data: string, mimeType: string): string => {
    mkdirSync(opts.outputDir, { recursive: true });
    const path = join(opts.outputDir, `${opts.fileStem}-${n++}.${EXTENSIONS[mimeType] ?? 'bin'}`);
    writeFileSync(path, Buffer.from(data, 'base64'));
    return path;
  };
  for (const block of result.content ?? [])
    switch (block.type) {
      case 'text':
        parts.push({ type: 'text', text: block.text });
        break;
      case 'image':
        parts.push({ type: 'image', path: writeFile(block.data, block.mimeType), mediaType: block.mimeType });
        break;
      case 'audio':
        parts.push({ type: 'file', path: writeFile(block.data, block.mimeType), mediaType: block.mimeType });
        break;
      case 'resource_link':
        parts.push({ type: 'text', text: `[${block.name}](${block.uri})` });
        break;
      case 'resource': {
        const r = block.resource;
        parts.push({ type: 'text', text: 'text' in r ? r.text : `[resource](${r.uri})` });
        break;
      }
    }
  return { content: parts };
}

/** The text of a tool result's text blocks (an error's message). */
export function toolResultText(result: CallToolResult): string {
  return (result.content ?? [])
    .filter((b): b is Extract<ContentBlock, { type: 'text' }> => b.type === 'text')
    .map((b) => b.text)
    .join('\n');
}
