import { setMaxListeners } from 'node:events';
import type { HostFeature } from '../features/index.js';
import { TRACE_LOG } from '../traces/index.js';
import { LegacySessions } from './legacy-sessions.js';
import { McpCredential } from './mcp-credential.js';
import { remoteServersOf } from './mcp-proxy.js';
import { registerMcpRoutes } from './mcp-routes.js';
import { createMcpUpstream, type McpUpstream } from './mcp-upstream.js';
import { SessionOwners } from './session-owners.js';

/**
 * Remote MCP servers through the host (docs/tools.md, "Remote MCP servers"): an agent granted a
 * server in `permissions.mcp` reaches it at `/mesh/mcp/NAME` (Streamable HTTP) or
 * `/mesh/mcp/NAME/sse` (legacy SSE). The host sends the server's credential from the vault (a
 * bearer token, or an OAuth access token it gets with client credentials) in place of the agent's
 * token, so no server credential enters a container; it follows no redirect and only the server's
 * own origin for the SSE endpoint, and bounds what each agent holds open.
 */
export function mcpFeature(options: { upstream?: McpUpstream } = {}): HostFeature {
  return {
    name: 'mcp',
    needs: [TRACE_LOG],
    build(context) {
      const upstream = options.upstream ?? createMcpUpstream();
      const servers = remoteServersOf(
        context.config,
        (name, config) =>
          new McpCredential({
            server: name,
            config,
            secrets: context.secrets,
            clock: context.clock,
            post: (url, form, timeoutMs) => upstream.postForm(name, url, form, timeoutMs),
          }),
      );
      const logger = context.logger.child({ component: 'mcp' });
      // Each open request listens for the host's stop: at most agents × MCP_REQUESTS_PER_AGENT.
      setMaxListeners(0, context.signal);
      const deps = {
        context,
        servers,
        upstream,
        sessions: new LegacySessions(),
        owners: new SessionOwners(),
        traces: context.need(TRACE_LOG),
        logger,
      };
      return {
        routes: (app) => registerMcpRoutes(app, deps),
        stop: () => upstream.close(),
      };
    },
  };
}
