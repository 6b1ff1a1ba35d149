import { type Clock, systemClock } from '@openlegion/infra/clock';
import {
  fallbacksFor,
  isOpenLegionError,
  type MeshConfig,
  OpenLegionError,
  resolveModel,
  TIER_NAMES,
} from '@openlegion/protocol';
import type { Logger } from 'pino';
import type { SecretSource } from '../secrets/index.js';
import { type CallSignal, isEventStream, type LlmAnswer } from '../server/index.js';
import { fromAnthropicResponse } from './anthropic/index.js';
import { KeyRing } from './key-ring.js';
import type { ChatCompletionBody, EmbeddingsBody } from './llm-requests.js';
import { classify, FAILS_OVER, ModelHealthBoard, type ModelState } from './model-health.js';
import { listConfiguredModels, type ModelList } from './model-list.js';
import { type ResolvedModel, resolveUpstreamModel } from './model-resolver.js';
import { cleanTranscript, hygieneFamily } from './transcript-hygiene.js';
import { type UpstreamPath, upstreamCall } from './upstream-call.js';
import { ProviderUnavailableError, unreachable, upstreamFailure } from './upstream-errors.js';
import { createUpstreamPool, headerOf, requestUpstream, type UpstreamAnswer } from './upstream-request.js';
import { type ChunkSource, withCompletionLog } from './with-completion-log.js';

export type { UpstreamPath } from './upstream-call.js';

/** Who is calling, and the signal that aborts the upstream call when the client goes away. */
export interface LlmCallContext {
  agent: string;
  signal?: CallSignal;
  /** The host's request id, so each failover decision can be found in the log. */
  requestId?: string;
  /** W3C `traceparent` sent to the provider (telemetry on): the host's span of this call. */
  traceparent?: string;
}

export interface LlmProxyOptions {
  config: MeshConfig;
  /** Where provider keys (`vault:NAME`, `env:NAME`) are looked up. */
  secrets: SecretSource;
  logger: Logger;
  baseUrlOverrides?: Record<string, string>;
  /** Time to the answer's first byte; default mesh.yaml `llm.timeouts.first_byte_ms`. */
  headersTimeoutMs?: number;
  /** For cooldowns (a fake one in tests). */
  clock?: Clock;
}

/**
 * The OpenAI-compatible LLM proxy. `resolve` and `forward` are separate so failover can try several
 * resolved models; the `forward*` helpers do both for one model.
 */
export interface LlmProxy {
  resolve(model: string): ResolvedModel;
  /**
   * POST `body` (with `model` replaced by the upstream name) to one resolved model. Resolves to the
   * provider's OK answer: a whole body read, or an SSE stream whose bytes pass through as they arrive; rejects with
   * LLM_PROVIDER_UNAVAILABLE (a ProviderUnavailableError), the code of a provider's 400/404/413/422
   * (LLM_REQUEST_REJECTED, LLM_MODEL_NOT_FOUND, ...: see upstreamFailure), or LLM_PROVIDER_ERROR.
   */
  forward(
    target: ResolvedModel,
    path: UpstreamPath,
    body: Record<string, unknown>,
    context: LlmCallContext,
  ): Promise<LlmAnswer>;
  /**
   * Forward to `requested`, or — when it is cooling down or fails with a billing, key, rate-limit or
   * server error before answering — to the next of `llm.fallbacks` (in order, or rotating with
   * `fallback_strategy: round-robin`). A request error (400, a context overflow) goes back as it is.
   */
  forwardWithFailover(
    requested: ResolvedModel,
    path: UpstreamPath,
    body: Record<string, unknown>,
    context: LlmCallContext,
  ): Promise<{ response: LlmAnswer; target: ResolvedModel }>;
  /** Each configured model's state (cooldowns). */
  health(): ModelState[];
  forwardChatCompletion(body: ChatCompletionBody, context: LlmCallContext): Promise<LlmAnswer>;
  forwardEmbeddings(body: EmbeddingsBody, context: LlmCallContext): Promise<LlmAnswer>;
  /** The model an embeddings request names, else `llm.embedding_model`; LLM_MODEL_INVALID when neither. */
  embeddingModel(body: EmbeddingsBody): string;
  listModels(): ModelList;
  /** Close the connections to the providers, cutting calls in flight (the host is stopping). */
  close(): Promise<void>;
}

/** Build the LLM proxy for one mesh config. */
export function createLlmProxy(options: LlmProxyOptions): LlmProxy {
  const { timeouts } = options.config.llm;
  const headersTimeoutMs = options.headersTimeoutMs ?? timeouts.first_byte_ms;
  const upstream = createUpstreamPool({ connectMs: timeouts.connect_ms, headersMs: headersTimeoutMs });
  const log = options.logger.child({ component: 'llm-proxy' });
  const clock = options.clock ?? systemClock;
  const keys = new KeyRing(clock);
  const resolverOptions = {
    ...options,
    pickKey: (provider: string, references: readonly string[]) => keys.pick(provider, references),
  };
  const resolve = (model: string) => resolveUpstreamModel(resolverOptions, model);

  const forward: LlmProxy['forward'] = async (target, path, body, context) => {
    const started = performance.now();
    // Built when first needed: most calls log one line, at their end.
    let child: Logger | undefined;
    const callLog = () =>
      (child ??= log.child({ agent: context.agent, provider: target.provider, model: target.model }));
    const elapsed = () => Math.round(performance.now() - started);
    // The client's own signal aborts the upstream call (undici drops its listener when the call
    // ends); the connect and headers timeouts are the upstream agent's.
    let answer: UpstreamAnswer;
    try {
      const call = upstreamCall(target, path, hygienic(target, path, body, callLog), options.config);
      if (context.traceparent) call.headers.traceparent = context.traceparent;
      answer = await requestUpstream(upstream, call, context.signal);
    } catch (error) {
      if (isOpenLegionError(error) && !(error instanceof ProviderUnavailableError)) {
        // The request could not be put into the provider's shape: nothing was sent.
        throw error;
      }
      if (context.signal?.aborted) {
        callLog().info({ ms: elapsed() }, 'llm call aborted by client');
        throw new OpenLegionError('LLM_PROVIDER_UNAVAILABLE', 'the client went away', { cause: error });
      }
      const failure = unreachable(
        target,
        timeoutCause(error, { connectMs: timeouts.connect_ms, headersMs: headersTimeoutMs }) ?? error,
      );
      callLog().warn(
        { status: null, ms: elapsed(), code: failure.code, err: failure.message },
        'llm call failed',
      );
      throw failure;
    }

    const status = answer.statusCode;
    if (status >= 300 && status < 400) {
      // Never follow a redirect: it would cost a copy of the body, and could carry the key
      // somewhere it was not meant to go. The provider counts as unreachable (it fails over).
      discard(answer);
      const failure = unreachable(target, new Error(`it answered ${status}, a redirect (not followed)`));
      callLog().warn({ status, ms: elapsed(), code: failure.code }, 'llm call failed');
      throw failure;
    }
    if (status >= 400) {
      const failure = await upstreamFailure(target, {
        status,
        statusText: answer.statusText,
        retryAfter: headerOf(answer.headers, 'retry-after'),
        text: () => answer.body.text(),
      });
      callLog().warn({ status, ms: elapsed(), code: failure.code }, 'llm call failed');
      throw failure;
    }
    let source: ChunkSource | null;
    let contentType: string;
    if (target.kind === 'anthropic') {
      try {
        const translated = await fromAnthropicResponse(
          { json: () => answer.body.json(), body: answer.body },
          {
            stream: body.stream === true,
            includeUsage:
              (body.stream_options as { include_usage?: unknown } | undefined)?.include_usage === true,
            model: target.upstreamModel,
            now: clock.now(),
          },
        );
        contentType = translated.headers.get('content-type') ?? 'application/json';
        source = translated.body;
      } catch (error) {
        discard(answer);
        callLog().warn({ status, ms: elapsed(), err: String(error) }, 'llm call failed');
        throw error;
      }
    } else {
      contentType = headerOf(answer.headers, 'content-type') ?? 'application/json';
      source = answer.body;
    }
    if (!isEventStream(contentType) || !source) {
      // A whole answer is small: read before the client gets a byte, so a body that breaks off can
      // still fail over, and the routes send it without stream plumbing.
      let bytes: Uint8Array;
      try {
        // undici's own reader is cheaper than iterating its stream.
        bytes = source === answer.body ? await answer.body.bytes() : await readWhole(source);
      } catch (error) {
        const failure = unreachable(target, error);
        callLog().warn({ status, ms: elapsed(), code: failure.code }, 'llm call failed');
        throw failure;
      }
      if (log.isLevelEnabled('info')) callLog().info({ status, ms: elapsed() }, 'llm call');
      return { status, contentType, body: bytes };
    }
    const stream = withCompletionLog(
      source,
      () => {
        if (log.isLevelEnabled('info')) callLog().info({ status, ms: elapsed() }, 'llm call');
      },
      (error) => {
        callLog().warn({ ms: elapsed(), err: error }, 'llm stream broke off after its first bytes');
        // Past the first byte there is no failing over: the client learns of it as an SSE error
        // event (OpenAI clients raise it), not as a stream that silently stops.
        return `event: error\ndata: ${JSON.stringify({
          error: {
            code: 'LLM_PROVIDER_UNAVAILABLE',
            message: `provider "${target.provider}" broke off the stream: ${error instanceof Error ? error.message : String(error)}`,
            retryable: true,
            // OpenAI's fields too, as on every /v1 error body (docs/errors.md).
            type: 'server_error',
            param: null,
          },
        })}\n\n`;
      },
    );
    return { status, contentType, body: stream };
  };

  const board = new ModelHealthBoard(options.clock ?? systemClock);
  let rotation = 0;
  const forwardWithFailover: LlmProxy['forwardWithFailover'] = async (requested, path, body, context) => {
    const strategy = options.config.llm.fallback_strategy;
    const fallbacks = fallbacksFor(options.config, context.agent);
    let others = path === '/chat/completions' ? fallbacks.filter((model) => model !== requested.model) : [];
    if (strategy === 'round-robin' && others.length > 0) {
      const start = rotation++ % others.length;
      others = [...others.slice(start), ...others.slice(0, start)];
    }
    // Built only when a decision is logged: most calls are answered by the first model.
    let decisionLog: Logger | undefined;
    const decisions = () => (decisionLog ??= log.child({ agent: context.agent, request: context.requestId }));
    let lastError: unknown;
    for (const model of [requested.model, ...others]) {
      if (!board.available(model)) {
        decisions().info(
          { model, until: new Date(board.cooldownUntil(model)).toISOString() },
          'failover: model cooling down, skipped',
        );
        continue;
      }
      let target = model === requested.model ? requested : resolve(model);
      for (;;) {
        try {
          const response = await forward(target, path, body, context);
          board.succeeded(model);
          if (model !== requested.model)
            decisions().warn({ requested: requested.model, model }, 'failover: answered by a fallback');
          return { response, target };
        } catch (error) {
          if (context.signal?.aborted) throw error;
          const failure = classify(error);
          // A refused key is set aside; the same model is tried again with the provider's next key.
          const references = options.config.llm.providers[target.provider]?.api_keys ?? [];
          if (failure === 'auth' && target.keyRef && references.length > 1) {
            keys.setAside(target.keyRef);
            decisions().warn({ model, key: target.keyRef }, 'failover: key refused, set aside for an hour');
            if (keys.live(references).length > 0) {
              target = resolve(model);
              continue;
            }
          }
          if (!FAILS_OVER.has(failure)) throw error;
          const retryAfterMs = ((error as OpenLegionError).details as { retry_after_ms?: number } | undefined)
            ?.retry_after_ms;
          const cooldownMs = board.failed(model, failure, retryAfterMs);
          decisions().warn(
            { model, failure, cooldown_ms: cooldownMs },
            'failover: model failed, trying the next',
          );
          lastError = error;
          break;
        }
      }
    }
    if (lastError) throw lastError;
    const soonest = Math.min(...[requested.model, ...others].map((model) => board.cooldownUntil(model)));
    throw new ProviderUnavailableError(
      `every model for this call is cooling down after failures (${[requested.model, ...others].join(', ')}); the first is back at ${new Date(soonest).toISOString()}`,
      { details: { models: [requested.model, ...others], retry_at: new Date(soonest).toISOString() } },
    );
  };

  return {
    resolve,
    forward,
    forwardWithFailover,
    health: () => configuredModels(options.config).map((model) => board.state(model)),
    forwardChatCompletion: (body, context) =>
      forward(resolve(body.model), '/chat/completions', body, context),
    forwardEmbeddings: (body, context) =>
      forward(resolve(embeddingModel(options.config, body)), '/embeddings', body, context),
    embeddingModel: (body) => embeddingModel(options.config, body),
    listModels: () => listConfiguredModels(options.config),
    // In-flight calls are cut: a stream may run for minutes, and the host is stopping.
    close: () => upstream.destroy(),
  };
}

/** The body with its transcript repaired for `target`'s provider (chat only; the agent's copy is untouched). */
function hygienic(
  target: ResolvedModel,
  path: UpstreamPath,
  body: Record<string, unknown>,
  log: () => Logger,
): Record<string, unknown> {
  if (path !== '/chat/completions' || !Array.isArray(body.messages)) return body;
  const { messages, repairs } = cleanTranscript(body.messages, hygieneFamily(target));
  if (repairs.length > 0) log().info({ repairs }, 'transcript repaired for the provider');
  return { ...body, messages };
}

/** The undici timeouts, worded for the agent; undefined for any other error. */
function timeoutCause(error: unknown, timeouts: { connectMs: number; headersMs: number }): Error | undefined {
  const code = (error as { code?: unknown } | null)?.code;
  if (code === 'UND_ERR_HEADERS_TIMEOUT') return new Error(`no response within ${timeouts.headersMs} ms`);
  if (code === 'UND_ERR_CONNECT_TIMEOUT') return new Error(`no connection within ${timeouts.connectMs} ms`);
  return undefined;
}

/** Drop an answer's body unread. Its stream errors as it is destroyed: that error is expected, not thrown. */
function discard(answer: UpstreamAnswer): void {
  answer.body.on('error', () => {});
  answer.body.destroy();
}

/** A non-stream body's bytes, read to its end. */
async function readWhole(body: ChunkSource | null): Promise<Uint8Array> {
  if (!body) return new Uint8Array(0);
  const chunks: Uint8Array[] = [];
  for await (const chunk of body as AsyncIterable<Uint8Array>) chunks.push(chunk);
  return chunks.length === 1 ? (chunks[0] as Uint8Array) : Buffer.concat(chunks);
}

/** Every model mesh.yaml names: the default, the tiers, the fallbacks, the embedding model. */
function configuredModels(config: MeshConfig): string[] {
  const { llm } = config;
  return [
    ...new Set([
      llm.default_model,
      ...TIER_NAMES.map((tier) => resolveModel(config, tier)),
      ...llm.fallbacks,
      ...Object.values(config.agents).flatMap((agent) => agent.fallbacks),
      ...(llm.embedding_model ? [llm.embedding_model] : []),
    ]),
  ];
}

function embeddingModel(config: MeshConfig, body: EmbeddingsBody): string {
  const model = body.model ?? config.llm.embedding_model;
  if (!model) {
    throw new OpenLegionError(
      'LLM_MODEL_INVALID',
      'no model given and llm.embedding_model is not set in mesh.yaml',
    );
  }
  return model;
}
