export { mcpFeature } from './mcp-feature.js';
export { MCP_BODY_MAX_BYTES, MCP_REQUESTS_PER_AGENT } from './mcp-routes.js';
