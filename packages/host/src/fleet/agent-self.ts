import { readFileSync } from 'node:fs';
import { type AgentSelf, memoryEmbedder, OpenLegionError, resolveModel } from '@openlegion/protocol';
import type { FeatureContext } from '../features/index.js';
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
      fast_tier: { ...agentConfig.memory.fast_tier },
    },
    skills: { disabled: [...agentConfig.skills.disabled], prompt_chars: agentConfig.skills.prompt_chars },
    tool_loading: agentConfig.tool_loading,
  };
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
