/**
 * MCP both ways, on the official SDK: serve a catalog's executable APIs to any MCP client (one tool
 * per API, or tool search), and import MCP servers' tools as catalog apps behind `dispatchCall`.
 * Subpath `apiary/mcp`. See docs/mcp.md.
 * @module
 */

// One imported server's connection (reconnects after a crash) and its typed failures
export {
  DEFAULT_CONNECT_TIMEOUT_MS,
  McpConnection,
  type McpConnectionOptions,
  type McpFailure,
  McpServerError,
} from './connection.js';
// Content conversion between Apiary results and MCP tool results
export { callErrorToToolResult, contentToToolResult, MediaFolder, toolResultToAppResult } from './content.js';
// Serving over Streamable HTTP (sessions, optional bearer token)
export { type McpHttpOptions, type McpHttpServer, startMcpHttpServer } from './http.js';
// Importing servers' tools as catalog apps
export {
  type ImportedMcpServer,
  importMcpServer,
  importMcpServers,
  type McpImport,
  type McpImportOptions,
  type McpImportProgress,
} from './import.js';
// JSON Schema of a tool's input as catalog parameters
export { jsonSchemaToParameters, type SchemaSource } from './json-schema-params.js';
// Serving a catalog: tools mode or tool search, approvals by elicitation
export {
  type McpServeMode,
  type McpServeOptions,
  mcpServerFactory,
} from './serve.js';
// The desktop-client `mcpServers` config
export {
  type AutoApprovePolicy,
  type McpServerSpec,
  type McpServersConfig,
  readMcpServersConfig,
} from './servers-config.js';
