import { errorFromBody, parseRequest } from '@openlegion/infra/http';
import { chatRequestSchema, type MeshStatus, OpenLegionError } from '@openlegion/protocol';
import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import type { TokenRegistry } from '../auth/index.js';
import type { AgentRegistry } from '../registry/index.js';
import { abortOnClientClose } from '../server/client-abort.js';
import { sendUpstream } from '../server/upstream-reply.js';
import type { AgentClient } from './agent-client.js';

export interface OperatorRouteDeps {
  /** The fleet's registry (created when the host's database is open). */
  registry: () => AgentRegistry;
  tokens: TokenRegistry;
  agentClient: AgentClient;
  meshStatus: () => MeshStatus;
  onShutdown?: (() => void) | undefined;
}

const agentParamsSchema = z.object({ agent: z.string().min(1) });

/** The operator API (`/api/*`), used by the CLI with the operator token. */
export function registerOperatorRoutes(app: FastifyInstance, deps: OperatorRouteDeps): void {
  const auth = { auth: 'operator' } as const;

  app.get('/api/status', { config: auth }, async () => deps.meshStatus());

  app.post('/api/agents/:agent/chat', { config: auth }, async (request, reply) => {
    const { agent } = parseRequest(agentParamsSchema, request.params, 'params');
    const body = parseRequest(chatRequestSchema, request.body);
    const { url, token } = reachableAgent(deps, agent);
    let upstream: Response;
    try {
      upstream = await deps.agentClient.relayChat(url, token, body, abortOnClientClose(reply));
    } catch (error) {
      const reason = error instanceof Error ? error.message : String(error);
      throw new OpenLegionError('AGENT_NOT_READY', `agent "${agent}" did not answer at ${url}: ${reason}`, {
        cause: error,
        details: { agent },
      });
    }
    if (!upstream.ok) throw await agentFailure(agent, upstream);
    return sendUpstream(reply, upstream);
  });

  app.post(
    '/api/shutdown',
    {
      config: auth,
      // After the 202 has gone out, so the caller hears back before the host closes.
      onResponse: async (_request, reply) => {
        if (reply.statusCode === 202) deps.onShutdown?.();
      },
    },
    async (_request, reply) => reply.code(202).send({ ok: true }),
  );
}

function reachableAgent(deps: OperatorRouteDeps, agent: string): { url: string; token: string } {
  const record = deps.registry().get(agent);
  if (!record) {
    const agents = deps
      .registry()
      .list()
      .map((known) => known.name);
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
    throw new OpenLegionError('AGENT_NOT_READY', `agent "${agent}" is ${record.state}, not ready`, {
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
