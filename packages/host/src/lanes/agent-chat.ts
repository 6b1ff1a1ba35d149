import { errorFromBody } from '@openlegion/infra/http';
import { type ChatRequest, OpenLegionError, type TaskRequest } from '@openlegion/protocol';
import type { TokenRegistry } from '../auth/index.js';
import type { AgentRegistry } from '../registry/index.js';
import type { AgentClient } from './agent-client.js';

/** What it takes to reach an agent's chat: who is ready where, and the token it expects. */
export interface AgentChatDeps {
  /** The host's agent registry (who is ready, where). */
  registry: AgentRegistry;
  tokens: TokenRegistry;
  agentClient: AgentClient;
}

/**
 * Open a chat with a ready agent: its SSE response, body unread. Throws AGENT_UNKNOWN (naming
 * the agents), AGENT_NOT_READY, or the agent's own error (AGENT_BUSY, ...).
 */
export async function openAgentChat(
  deps: AgentChatDeps,
  agent: string,
  body: ChatRequest | { task: TaskRequest },
  signal?: AbortSignal,
  traceparent?: string,
): Promise<Response> {
  const { url, token } = reachableAgent(deps, agent);
  let upstream: Response;
  try {
    upstream =
      'task' in body
        ? await deps.agentClient.relayTask(url, token, body.task, signal, traceparent)
        : await deps.agentClient.relayChat(url, token, body, signal, traceparent);
  } catch (error) {
    if (signal?.aborted) throw error;
    const reason = error instanceof Error ? error.message : String(error);
    throw new OpenLegionError('AGENT_NOT_READY', `agent "${agent}" did not answer at ${url}: ${reason}`, {
      cause: error,
      details: { agent },
    });
  }
  if (!upstream.ok) throw await agentFailure(agent, upstream);
  return upstream;
}

export function reachableAgent(
  deps: Pick<AgentChatDeps, 'registry' | 'tokens'>,
  agent: string,
): { url: string; token: string } {
  const record = deps.registry.get(agent);
  if (!record) {
    const agents = deps.registry.list().map((known) => known.name);
    throw new OpenLegionError(
      'AGENT_UNKNOWN',
      `no agent "${agent}" (agents: ${agents.join(', ') || 'none'})`,
      {
        details: { agents },
      },
    );
  }
  const token = deps.tokens.tokenFor(agent);
  if (record.state !== 'ready' || !record.url || !token) {
    const why = record.state === 'ready' ? 'has no address or token yet' : `is ${record.state}, not ready`;
    throw new OpenLegionError('AGENT_NOT_READY', `agent "${agent}" ${why}`, {
      details: { agent, state: record.state },
    });
  }
  return { url: record.url, token };
}

/** The agent's own error body when it sent one (AGENT_BUSY…), else AGENT_NOT_READY with its status. */
async function agentFailure(agent: string, upstream: Response): Promise<OpenLegionError> {
  const text = await upstream.text().catch(() => '');
  return errorFromBody(
    upstream.status,
    text,
    (status) =>
      new OpenLegionError('AGENT_NOT_READY', `agent "${agent}" answered ${status}`, {
        details: { agent, status },
      }),
  );
}
