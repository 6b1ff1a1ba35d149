import { randomUUID } from 'node:crypto';
import { parseRequest } from '@openlegion/infra/http';
import { openSseResponse } from '@openlegion/infra/sse';
import {
  type ChatEvent,
  chatRequestSchema,
  formatSseEvent,
  heartbeatRequestSchema,
  OpenLegionError,
  type SteerResponse,
  steerRequestSchema,
  TRACEPARENT_HEADER,
  taskRequestSchema,
} from '@openlegion/protocol';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { ActiveTurn, ActiveTurns } from '../loop/active-turns.js';
import { type AgentLoop, HEARTBEAT_CONVERSATION_ID } from '../loop/agent-loop.js';
import type { TraceParents } from '../trace-parents.js';

export interface TurnRoutesDeps {
  /** The loop once the host has said who the agent is. */
  loop: () => AgentLoop | undefined;
  turns: ActiveTurns;
  /** Aborted when the server closes, ending the turns in flight. */
  controllers: Set<AbortController>;
  /** Called for every event streamed (the `/status` progress counter). */
  onEvent: () => void;
  /** Where each turn's `traceparent` is kept for the calls it makes to the host. */
  traceParents?: TraceParents | undefined;
}

/**
 * `POST /chat`, `POST /task` (SSE answers), `POST /chat/steer` and `POST /heartbeat` (JSON). One
 * turn at a time per conversation: a second one is refused with AGENT_BUSY, a steer joins it.
 */
export function turnRoutes(deps: TurnRoutesDeps) {
  return async (app: FastifyInstance): Promise<void> => {
    app.post('/chat', async (request, reply) => {
      const body = parseRequest(chatRequestSchema, request.body ?? {});
      const loop = readyLoop(deps);
      deps.traceParents?.remember(body.trace_id, request.headers[TRACEPARENT_HEADER]);
      await streamTurn(deps, request, reply, body.conversation_id, (turn, emit, signal) =>
        loop.runChat(
          {
            message: body.message,
            conversationId: body.conversation_id,
            ...(body.trace_id ? { traceId: body.trace_id } : {}),
            drainSteered: turn.drainSteered,
          },
          emit,
          signal,
        ),
      );
    });

    app.post('/task', async (request, reply) => {
      const body = parseRequest(taskRequestSchema, request.body ?? {});
      const loop = readyLoop(deps);
      deps.traceParents?.remember(body.trace_id, request.headers[TRACEPARENT_HEADER]);
      const conversationId = body.conversation_id ?? `task-${randomUUID()}`;
      await streamTurn(deps, request, reply, conversationId, (turn, emit, signal) =>
        loop.runTask(
          {
            message: body.task,
            conversationId,
            ...(body.trace_id ? { traceId: body.trace_id } : {}),
            ...(body.max_iterations ? { maxIterations: body.max_iterations } : {}),
            drainSteered: turn.drainSteered,
          },
          emit,
          signal,
        ),
      );
    });

    app.post('/chat/steer', async (request): Promise<SteerResponse> => {
      const body = parseRequest(steerRequestSchema, request.body ?? {});
      return { steered: deps.turns.steer(body.conversation_id, body.message) };
    });

    app.post('/heartbeat', async (request, reply) => {
      const body = parseRequest(heartbeatRequestSchema, request.body ?? {});
      const loop = readyLoop(deps);
      const turn = beginTurn(deps, HEARTBEAT_CONVERSATION_ID);
      const controller = new AbortController();
      deps.controllers.add(controller);
      reply.raw.once('close', () => {
        if (!reply.raw.writableFinished) controller.abort(new Error('the client closed the connection'));
      });
      try {
        return await loop.runHeartbeat(
          {
            pendingMessages: body.pending_messages,
            pendingEvents: body.pending_events,
            ...(body.trace_id ? { traceId: body.trace_id } : {}),
          },
          controller.signal,
          () => deps.onEvent(),
        );
      } finally {
        deps.controllers.delete(controller);
        turn.end();
      }
    });
  };
}

function readyLoop(deps: TurnRoutesDeps): AgentLoop {
  const loop = deps.loop();
  if (loop === undefined) throw new OpenLegionError('AGENT_NOT_READY', 'the agent is still starting');
  return loop;
}

function beginTurn(deps: TurnRoutesDeps, conversationId: string): ActiveTurn {
  const turn = deps.turns.begin(conversationId);
  if (turn === undefined) {
    throw new OpenLegionError('AGENT_BUSY', `conversation "${conversationId}" is already answering a chat`);
  }
  return turn;
}

type RunTurn = (turn: ActiveTurn, emit: (event: ChatEvent) => void, signal: AbortSignal) => Promise<void>;

/** Answer a turn as an SSE stream; a crash becomes an INTERNAL error event. */
async function streamTurn(
  deps: TurnRoutesDeps,
  request: FastifyRequest,
  reply: FastifyReply,
  conversationId: string,
  run: RunTurn,
): Promise<void> {
  const turn = beginTurn(deps, conversationId);
  const controller = new AbortController();
  deps.controllers.add(controller);
  reply.hijack();
  const stream = openSseResponse(reply.raw, { controller });
  const emit = (event: ChatEvent) => {
    deps.onEvent();
    stream.send(formatSseEvent(event));
  };
  try {
    await run(turn, emit, stream.signal);
  } catch (error) {
    request.log.error({ err: error }, 'turn failed');
    emit({
      type: 'error',
      code: 'INTERNAL',
      message: 'unexpected fault; see the agent log',
      retryable: false,
    });
  } finally {
    deps.controllers.delete(controller);
    turn.end();
    stream.end();
  }
}
