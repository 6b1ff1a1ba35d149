import { parseRequest } from '@openlegion/infra/http';
import { chatRequestSchema, type MeshStatus } from '@openlegion/protocol';
import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { abortOnClientClose } from '../server/client-abort.js';
import { sendUpstream } from '../server/upstream-reply.js';
import { type AgentChatDeps, openAgentChat } from './agent-chat.js';

export interface OperatorRouteDeps extends AgentChatDeps {
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
    const upstream = await openAgentChat(deps, agent, body, abortOnClientClose(reply));
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
