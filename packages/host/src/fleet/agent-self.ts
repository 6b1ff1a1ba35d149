import { readFileSync } from 'node:fs';
import {
  type AgentSelf,
  type DeepReadonly,
  GLOBAL_MEMORY_SCOPE,
  isRemoteMcpServer,
  isSharedMemoryScope,
  type McpServerSelf,
  type McpStdioServerConfig,
  type MeshConfig,
  memoryEmbedder,
  OpenLegionError,
  resolveModel,
} from '@openlegion/protocol';
import type { FeatureContext } from '../features/index.js';
import { globMatcher } from '../permissions/index.js';
import { parseSecretReference } from '../secrets/index.js';

/** What `GET /mesh/self` tells an agent about itself, from mesh.yaml. */
export function agentSelf(
  context: Pick<FeatureContext, 'config' | 'resolvePath' | 'secrets'>,
  agent: string,
): AgentSelf {
  const { config } = context;
  const agentConfig = config.agents[agent];
  if (!agentConfig) throw new OpenLegionError('AGENT_UNKNOWN', `no agent "${agent}"`);
  return {
    agent,
    mesh: config.mesh.name,
    role: agentConfig.role,
    model: resolveModel(config, agentConfig.model),
    soul: readSoul(agentConfig.soul, context.resolvePath),
    tools: typeof agentConfig.tools === 'string' ? agentConfig.tools : [...agentConfig.tools],
    context: { ...agentConfig.context },
    loop: { ...agentConfig.loop },
    browser: {
      tier: agentConfig.browser.tier,
      evaluate: agentConfig.browser.evaluate,
      idle_timeout_ms: agentConfig.browser.idle_timeout_ms,
      ...cdpUrl(context, agentConfig.browser.cdp_url),
    },
    memory: {
      embedder: memoryEmbedder(config, agent),
      recall_chars: agentConfig.memory.recall_chars,
      shared_scopes: sharedRecallScopes(agentConfig.permissions.memory.read),
      fast_tier: { ...agentConfig.memory.fast_tier },
    },
    skills: { disabled: [...agentConfig.skills.disabled], prompt_chars: agentConfig.skills.prompt_chars },
    tool_loading: agentConfig.tool_loading,
    mcp: mcpServersOf(config, agent),
    approval: [...agentConfig.approval],
  };
}

/** At most this many shared scopes are searched per turn: each is a host call on the turn's path. */
const MAX_SHARED_RECALL_SCOPES = 8;

/**
 * The shared scopes recall searches: those `permissions.memory.read` names, and `global` when a
 * pattern matches it (`*`). Squads granted by a glob are not guessed: memory_search reads them.
 */
export function sharedRecallScopes(readPatterns: readonly string[]): string[] {
  const scopes = new Set<string>();
  if (globMatcher(readPatterns)(GLOBAL_MEMORY_SCOPE)) scopes.add(GLOBAL_MEMORY_SCOPE);
  for (const pattern of readPatterns) {
    if (isSharedMemoryScope(pattern)) scopes.add(pattern);
  }
  return [...scopes].slice(0, MAX_SHARED_RECALL_SCOPES);
}

/**
 * The agent's own stdio servers, then the fleet's it is granted: stdio ones it runs itself, remote
 * ones it reaches at `/mesh/mcp/NAME` (the address and credential stay with the host).
 */
export function mcpServersOf(config: MeshConfig, agent: string): McpServerSelf[] {
  const agentConfig = config.agents[agent];
  if (!agentConfig) return [];
  const stdio = (name: string, server: DeepReadonly<McpStdioServerConfig>): McpServerSelf => ({
    name,
    transport: 'stdio',
    command: server.command,
    args: [...server.args],
    env: { ...server.env },
    timeout_ms: server.timeout_ms,
  });
  const own = Object.entries(agentConfig.mcp).map(([name, server]) => stdio(name, server));
  const granted = agentConfig.permissions.mcp.flatMap((name): McpServerSelf[] => {
    const server = config.mcp.servers[name];
    if (!server) return [];
    if (!isRemoteMcpServer(server)) return [stdio(name, server)];
    return [{ name, transport: server.transport, timeout_ms: server.timeout_ms }];
  });
  return [...own, ...granted];
}

/** A CDP endpoint is the one secret an agent is handed: its browser must connect to it itself. */
function cdpUrl(
  context: Pick<FeatureContext, 'secrets'>,
  reference: string | undefined,
): { cdp_url?: string } {
  if (reference === undefined) return {};
  const value = context.secrets.lookup(parseSecretReference(reference));
  return value === undefined ? {} : { cdp_url: value };
}

/** `soul` is either the text itself or a path to a markdown file next to mesh.yaml. */
function readSoul(soul: string, resolvePath: (relative: string) => string): string {
  if (!/\.md$/i.test(soul.trim())) return soul;
  try {
    return readFileSync(resolvePath(soul.trim()), 'utf8');
  } catch (cause) {
    throw new OpenLegionError(
      'CONFIG_INVALID',
      `cannot read soul file ${soul}: ${(cause as Error).message}`,
      {
        cause,
      },
    );
  }
}
