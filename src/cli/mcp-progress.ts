import type { McpImportProgress } from '../mcp/index.js';
import { terminalText } from './output.js';

/**
 * Progress of importing MCP servers on stderr: which server is starting and how long it may take
 * (a cold `npx -y` takes most of the default minute), then how long it took.
 */
export function printMcpProgress(event: McpImportProgress): void {
  if (event.phase === 'starting')
    process.stderr.write(
      `starting MCP server "${terminalText(event.server)}" (${terminalText(event.where)}; up to ${event.timeoutMs / 1000} s)…\n`,
    );
  else
    process.stderr.write(
      `MCP server "${terminalText(event.server)}" ready: ${event.tools} tool(s) in ${(event.ms / 1000).toFixed(1)} s\n`,
    );
}
