import { parseRequest } from '@openlegion/infra/http';
import { type MeshConfig, TRACE_HEADER } from '@openlegion/protocol';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { CostMeter } from '../costs/index.js';
import { type AgentSlots, callAbortOnClientClose, type LlmAnswer, sendAnswer } from '../server/index.js';
import type { LlmProxy } from './llm-proxy.js';
import { chatCompletionBodySchema, embeddingsBodySchema } from './llm-requests.js';
import { requireModelAccess } from './model-access.js';
import { withOpenAiErrorShape } from './openai-error-shape.js';

/**
 * The OpenAI-compatible routes: any OpenAI client pointed at `<host>/v1` works unchanged. An agent
 * may call only its own model, the tiers, the fallbacks and the embedding model. With a
 * cost meter, each call first reserves what it could cost against its agent's budget (402 when it
 * does not fit) and its real cost is recorded from the usage the provider sends back.
 */
export function registerLlmRoutes(
  app: FastifyInstance,
  llm: LlmProxy,
  config: MeshConfig,
  costs?: () => CostMeter,
  calls?: AgentSlots,
): void {
  // Error answers leave in OpenAI's shape too, whichever handler wrote them (docs/errors.md).
  const v1Route = { config: { auth: 'agent-or-operator' }, onSend: withOpenAiErrorShape } as const;
  // An agent's calls run at most `limits.llm_calls_per_agent` at once; the slot is back when the
  // answer is sent or the agent hangs up (the operator's calls take none).
  const takeSlot = (request: FastifyRequest, reply: FastifyReply) => {
    if (!calls || request.agent === undefined) return;
    const release = calls.acquire(request.agent);
    reply.raw.once('finish', release);
    reply.raw.once('close', release);
  };

  app.post('/v1/chat/completions', v1Route, async (request, reply) => {
    const body = parseRequest(chatCompletionBodySchema, request.body);
    const target = llm.resolve(body.model);
    requireModelAccess(config, request.agent, target.model);
    takeSlot(request, reply);
    const charge = costs?.().open({ ...callOf(request), model: target.model, kind: 'chat', body });
    let upstream: LlmAnswer;
    let answered = target;
    try {
      ({ response: upstream, target: answered } = await llm.forwardWithFailover(
        target,
        '/chat/completions',
        body,
        {
          agent: callerName(request),
          signal: callAbortOnClientClose(reply),
          requestId: request.id,
        },
      ));
    } catch (error) {
      charge?.release();
      throw error;
    }
    return sendAnswer(reply, charge ? charge.tap(upstream, body.stream === true, answered.model) : upstream);
  });

  app.post('/v1/embeddings', v1Route, async (request, reply) => {
    const body = parseRequest(embeddingsBodySchema, request.body);
    const target = llm.resolve(llm.embeddingModel(body));
    requireModelAccess(config, request.agent, target.model);
    takeSlot(request, reply);
    const charge = costs?.().open({ ...callOf(request), model: target.model, kind: 'embeddings', body });
    let upstream: LlmAnswer;
    let answered = target;
    try {
      ({ response: upstream, target: answered } = await llm.forwardWithFailover(target, '/embeddings', body, {
        agent: callerName(request),
        signal: callAbortOnClientClose(reply),
        requestId: request.id,
      }));
    } catch (error) {
      charge?.release();
      throw error;
    }
    return sendAnswer(reply, charge ? charge.tap(upstream, false, answered.model) : upstream);
  });

  app.get('/v1/models', v1Route, async () => llm.listModels());

  app.get('/api/llm/health', { config: { auth: 'operator' } }, async () => ({
    fallback_strategy: config.llm.fallback_strategy,
    models: llm.health(),
  }));
}

function callerName(request: FastifyRequest): string {
  return request.agent ?? 'operator';
}

function callOf(request: FastifyRequest): {
  agent: string;
  bodyLength: number | undefined;
  requestId: string;
  traceId: string | null;
} {
  const trace = request.headers[TRACE_HEADER];
  // fastify read exactly this many bytes (it refuses a body of another length); absent when chunked.
  const length = Number(request.headers['content-length']);
  return {
    agent: callerName(request),
    bodyLength: Number.isSafeInteger(length) && length > 0 ? length : undefined,
    requestId: request.id,
    traceId: typeof trace === 'string' && /^[\w.:@-]{1,100}$/.test(trace) ? trace : null,
  };
}
