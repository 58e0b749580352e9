import { z } from 'zod';
import { parseWith, readJsonFile } from '../shared/index.js';

/**
 * Which of a server's tools run without asking the run's approver, by their annotations (hints the
 * server gives about itself: trust them only as far as you trust the server):
 * `none` (every tool asks), `read-only` (the default: tools marked `readOnlyHint`),
 * `non-destructive` (also those marked `destructiveHint: false`, e.g. additive writes), `all`.
 */
const AUTO_APPROVE_POLICIES = ['none', 'read-only', 'non-destructive', 'all'] as const;
export type AutoApprovePolicy = (typeof AUTO_APPROVE_POLICIES)[number];

/** What every server entry may say besides how to reach it. */
const McpServerPolicySchema = z.object({
  autoApprove: z.enum(AUTO_APPROVE_POLICIES).optional(),
  /** Time limit to start, connect and list the tools, in ms (a cold `npx -y` downloads first). */
  connectTimeoutMs: z.number().int().positive().optional(),
});

/** A server started as a child process speaking MCP on stdio. */
const McpStdioSpecSchema = McpServerPolicySchema.extend({
  command: z.string().min(1),
  args: z.array(z.string()).default([]),
  /** Extra environment; the child otherwise gets only the SDK's safe defaults (PATH, HOME, …), not ours. */
  env: z.record(z.string(), z.string()).optional(),
  cwd: z.string().optional(),
});
/** A server reached over Streamable HTTP. */
const McpHttpSpecSchema = McpServerPolicySchema.extend({
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

/** The policy fields alone, checked first: a union's error would not name the field at fault. */
const McpServersPoliciesSchema = z.object({ mcpServers: z.record(z.string(), McpServerPolicySchema) });

export function readMcpServersConfig(file: string): McpServersConfig {
  const json = readJsonFile(file);
  parseWith(McpServersPoliciesSchema, json, { file });
  return parseWith(McpServersConfigSchema, json, { file });
}

export function isStdioSpec(spec: McpServerSpec): spec is z.infer<typeof McpStdioSpecSchema> {
  return 'command' in spec;
}
