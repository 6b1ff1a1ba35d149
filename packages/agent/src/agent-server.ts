import { type Clock, systemClock } from '@openlegion/infra/clock';
import { parseRequest, registerErrorHandling } from '@openlegion/infra/http';
import { openSseResponse } from '@openlegion/infra/sse';
import type { MemoryEngine } from '@openlegion/memory';
import {
  type AgentSelf,
  type AgentStatus,
  type ChatEvent,
  chatRequestSchema,
  formatSseEvent,
  OpenLegionError,
} from '@openlegion/protocol';
import Fastify, { type FastifyBaseLogger, type FastifyInstance } from 'fastify';
import type { AgentEnv } from './agent-env.js';
import { bearerAuth } from './bearer-auth.js';
import type { ChatLoop } from './chat-loop.js';
import type { ConversationStore } from './conversation-store.js';
import { memoryRoutes } from './memory-routes.js';

/** Room for a maximal message (200 000 characters) even when every one is JSON-escaped. */
const BODY_LIMIT_BYTES = 2 * 1024 * 1024;

/** What the agent can do once the host has told it who it is. */
export interface ReadyAgent {
  self: AgentSelf;
  chat: ChatLoop;
}

export interface AgentServerDeps {
  env: Pick<AgentEnv, 'AGENT_ID' | 'MESH_TOKEN'>;
  store: Pick<ConversationStore, 'conversationCount'>;
  logger: FastifyBaseLogger;
  version: string;
  /**
   * The agent once `GET /mesh/self` has answered. The server listens before that (the contract's
   * order); until then `/status` says `starting` and `/chat` answers 503 AGENT_NOT_READY.
   */
  ready: () => ReadyAgent | undefined;
  /** For `uptime_ms`. */
  clock?: Clock;
  /** The agent's memory store; without it the `/memory/*` routes are not served. */
  memory?: () => MemoryEngine;
}

/**
 * The agent's HTTP API: `GET /status` (public) and `POST /chat` (bearer auth, SSE answer). One chat at a
 * time per conversation; closing the server aborts the chats in flight.
 */

/** Bodies are parsed with zod, so fastify need not build ajv and fast-json-stringify at start-up. */
const noJsonSchemas = () => () => {
  throw new Error('route JSON schemas are not used here: parse with zod');
};

export function createAgentServer(deps: AgentServerDeps): FastifyInstance {
  const clock = deps.clock ?? systemClock;
  const now = () => clock.now();
  const startedMs = now();
  const activeChats = new Map<string, AbortController>();
  /** Steps taken across all turns; the host's health monitor reads it to tell busy from hung. */
  let progress = 0;
  const app = Fastify({
    loggerInstance: deps.logger,
    bodyLimit: BODY_LIMIT_BYTES,
    schemaController: { compilersFactory: { buildValidator: noJsonSchemas, buildSerializer: noJsonSchemas } },
  });

  registerErrorHandling(app, { logName: 'agent' });
  app.addHook('preClose', async () => {
    for (const controller of activeChats.values()) controller.abort();
  });

  app.get('/status', async (): Promise<AgentStatus> => {
    const agent = deps.ready();
    return {
      agent: agent?.self.agent ?? deps.env.AGENT_ID,
      state: agent === undefined ? 'starting' : activeChats.size > 0 ? 'busy' : 'ready',
      version: deps.version,
      model: agent?.self.model ?? '',
      uptime_ms: Math.max(0, now() - startedMs),
      conversations: deps.store.conversationCount(),
      progress,
    };
  });

  app.register(async (authed) => {
    authed.addHook('onRequest', bearerAuth(deps.env.MESH_TOKEN));
    if (deps.memory) authed.register(memoryRoutes(deps.memory));
    authed.post('/chat', async (request, reply) => {
      const {
        message,
        conversation_id: conversationId,
        trace_id: traceId,
      } = parseRequest(chatRequestSchema, request.body ?? {});
      const agent = deps.ready();
      if (agent === undefined) throw new OpenLegionError('AGENT_NOT_READY', 'the agent is still starting');
      if (activeChats.has(conversationId)) {
        throw new OpenLegionError(
          'AGENT_BUSY',
          `conversation "${conversationId}" is already answering a chat`,
        );
      }
      const controller = new AbortController();
      activeChats.set(conversationId, controller);
      reply.hijack();
      const stream = openSseResponse(reply.raw, controller);
      const emit = (event: ChatEvent) => {
        progress += 1;
        stream.send(formatSseEvent(event));
      };
      try {
        await agent.chat.runChat(
          { message, conversationId, ...(traceId ? { traceId } : {}) },
          emit,
          stream.signal,
        );
      } catch (error) {
        request.log.error({ err: error }, 'chat failed');
        emit({
          type: 'error',
          code: 'INTERNAL',
          message: 'unexpected fault; see the agent log',
          retryable: false,
        });
      } finally {
        activeChats.delete(conversationId);
        stream.end();
      }
    });
  });

  return app;
}
