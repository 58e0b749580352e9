import { z } from 'zod';
import { parseWith, readJsonFile } from '../shared/index.js';

/** A server started as a child process speaking MCP on stdio. */
const McpStdioSpecSchema = z.object({
  command: z.string().min(1),
  args: z.array(z.string()).default([]),
  /** Extra environment; the child otherwise gets only the SDK's safe defaults (PATH, HOME, …), not ours. */
  env: z.record(z.string(), z.string()).optional(),
  cwd: z.string().optional(),
});
/** A server reached over Streamable HTTP. */
const McpHttpSpecSchema = z.object({
  url: z.string().url(),
  /** Extra request headers (e.g. `Authorization`). */
  headers: z.record(z.string(), z.string()).optional(),
});
const McpServerSpecSchema = z.union([McpStdioSpecSchema, McpHttpSpecSchema]);
export type McpServerSpec = z.infer<typeof McpServerSpecSchema>;

/** A server name is its app id in the imported catalog (API ids are `<server>.<tool>`). */
export const McpServerNameSchema = z
  .string()
  .regex(/^[A-Za-z0-9_-]{1,64}$/, 'a server name is 1-64 letters, digits, "_" or "-" (it becomes an app id)');

/** The desktop-client config format: `{"mcpServers": {name: {command, args, env} | {url}}}`. */
const McpServersConfigSchema = z.object({
  mcpServers: z.record(McpServerNameSchema, McpServerSpecSchema),
});
export type McpServersConfig = z.infer<typeof McpServersConfigSchema>;

export function readMcpServersConfig(file: string): McpServersConfig {
  return parseWith(McpServersConfigSchema, readJsonFile(file), { file });
}

export function isStdioSpec(spec: McpServerSpec): spec is z.infer<typeof McpStdioSpecSchema> {
  return 'command' in spec;
}
