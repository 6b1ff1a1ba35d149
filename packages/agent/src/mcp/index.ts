export { MCP_INIT_TIMEOUT_MS, MCP_RESTART_DELAYS_MS, McpConnection } from './mcp-connection.js';
export { McpManager, type McpManagerOptions } from './mcp-manager.js';
export { MCP_RESULT_MAX_CHARS, mcpToolResult } from './mcp-result.js';
export { type McpOperator, mcpRoutes } from './mcp-routes.js';
export { guardStdout, MCP_STDOUT_LINE_MAX_BYTES } from './mcp-stdout-guard.js';
export { MCP_SCHEMA_MAX_CHARS, MCP_SCHEMA_MAX_DEPTH, mcpToolDefinition } from './mcp-tool-schema.js';
export { createMcpTransport, type McpTransport, type McpTransportOptions } from './mcp-transport.js';
