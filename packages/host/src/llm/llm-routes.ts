import { parseRequest } from '@openlegion/infra/http';
import { isOpenLegionError, type MeshConfig, TRACE_HEADER } from '@openlegion/protocol';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { CostMeter, TappedUsage, UsageRecord } from '../costs/index.js';
import {
  type AgentSlots,
  callAbortOnClientClose,
  callTraceOf,
  formatTraceparent,
  type LlmAnswer,
  newSpanId,
  otelTraceIdOf,
  sendAnswer,
} from '../server/index.js';
import type { LlmCallSettled } from './llm-call-settled.js';
import type { LlmProxy } from './llm-proxy.js';
import {
  type ChatCompletionBody,
  chatCompletionBodySchema,
  type EmbeddingsBody,
  embeddingsBodySchema,
} from './llm-requests.js';
import { requireModelAccess } from './model-access.js';
import type { ResolvedModel } from './model-resolver.js';
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
  telemetry?: (call: LlmCallSettled) => void,
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

  const forwardCall = async (
    request: FastifyRequest,
    reply: FastifyReply,
    kind: 'chat' | 'embeddings',
    body: ChatCompletionBody | EmbeddingsBody,
    target: ResolvedModel,
  ) => {
    const path = kind === 'chat' ? '/chat/completions' : '/embeddings';
    const stream = kind === 'chat' && (body as ChatCompletionBody).stream === true;
    const call = telemetry ? openCallSpan(request, kind, stream, telemetry) : undefined;
    const charge = costs?.().open({ ...callOf(request), model: target.model, kind, body });
    let upstream: LlmAnswer;
    let answered = target;
    try {
      ({ response: upstream, target: answered } = await llm.forwardWithFailover(target, path, body, {
        agent: callerName(request),
        signal: callAbortOnClientClose(reply),
        requestId: request.id,
        // The provider sees the call's span only when traces leave the host at all.
        ...(call && config.telemetry.otlp_endpoint ? { traceparent: call.traceparent } : {}),
      }));
    } catch (error) {
      charge?.release();
      call?.settle(target, { errorCode: isOpenLegionError(error) ? error.code : 'INTERNAL' });
      throw error;
    }
    if (!charge) {
      if (call) reply.raw.once('close', () => call.settle(answered, {}));
      return sendAnswer(reply, upstream);
    }
    const onEnd = call
      ? (record: UsageRecord, usage: TappedUsage) => call.settle(answered, { record, usage })
      : undefined;
    return sendAnswer(reply, charge.tap(upstream, stream, answered.model, onEnd));
  };

  app.post('/v1/chat/completions', v1Route, async (request, reply) => {
    const body = parseRequest(chatCompletionBodySchema, request.body);
    const target = llm.resolve(body.model);
    requireModelAccess(config, request.agent, target.model);
    takeSlot(request, reply);
    return forwardCall(request, reply, 'chat', body, target);
  });

  app.post('/v1/embeddings', v1Route, async (request, reply) => {
    const body = parseRequest(embeddingsBodySchema, request.body);
    const target = llm.resolve(llm.embeddingModel(body));
    requireModelAccess(config, request.agent, target.model);
    takeSlot(request, reply);
    return forwardCall(request, reply, 'embeddings', body, target);
  });

  app.get('/v1/models', v1Route, async () => llm.listModels());

  app.get('/api/llm/health', { config: { auth: 'operator' } }, async () => ({
    fallback_strategy: config.llm.fallback_strategy,
    models: llm.health(),
  }));
}

/**
 * A call's span, opened as it is forwarded: its `traceparent` for the provider, reported once when
 * the call ends (a call without an `x-trace-id` gets a trace of its own, named by its request id).
 */
function openCallSpan(
  request: FastifyRequest,
  kind: 'chat' | 'embeddings',
  stream: boolean,
  report: (call: LlmCallSettled) => void,
): {
  traceparent: string;
  settle(
    answered: ResolvedModel,
    outcome: { errorCode?: string; record?: UsageRecord; usage?: TappedUsage },
  ): void;
} {
  // Wall-clock start (as the lanes' spans have), with the duration from the monotonic clock.
  const startedAt = Date.now();
  const started = performance.now();
  const trace = callTraceOf(request.headers);
  const spanId = newSpanId();
  const otelTraceId = trace?.otelTraceId ?? otelTraceIdOf(request.id);
  let settled = false;
  return {
    traceparent: formatTraceparent(otelTraceId, spanId),
    settle(answered, { errorCode, record, usage }) {
      if (settled) return;
      settled = true;
      report({
        agent: callerName(request),
        kind,
        model: answered.model,
        provider: answered.provider,
        upstreamModel: answered.upstreamModel,
        stream,
        trace,
        otelTraceId,
        spanId,
        startedAt,
        endedAt: startedAt + (performance.now() - started),
        errorCode,
        usage: record
          ? {
              input: record.prompt_tokens,
              output: record.completion_tokens,
              costUsd: record.cost_usd,
              estimated: record.estimated === 1,
            }
          : undefined,
        finishReasons: usage?.finishReasons ?? [],
        responseModel: usage?.responseModel,
      });
    },
  };
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
