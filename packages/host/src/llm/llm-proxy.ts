import { type MeshConfig, OpenLegionError } from '@openlegion/protocol';
import type { Logger } from 'pino';
import type { SecretSource } from '../secrets/index.js';
import type { ChatCompletionBody, EmbeddingsBody } from './llm-requests.js';
import { listConfiguredModels, type ModelList } from './model-list.js';
import { type ResolvedModel, resolveUpstreamModel } from './model-resolver.js';
import { unreachable, upstreamFailure } from './upstream-errors.js';

/** Until the provider's response headers arrive; a stream in progress is not cut. */
export const UPSTREAM_HEADERS_TIMEOUT_MS = 120_000;

export type UpstreamPath = '/chat/completions' | '/embeddings';

/** Who is calling, and the signal that aborts the upstream call when the client goes away. */
export interface LlmCallContext {
  agent: string;
  signal?: AbortSignal;
}

export interface LlmProxyOptions {
  config: MeshConfig;
  /** Where provider keys (`vault:NAME`, `env:NAME`) are looked up. */
  secrets: SecretSource;
  fetch?: typeof fetch;
  logger: Logger;
  baseUrlOverrides?: Record<string, string>;
  headersTimeoutMs?: number;
}

/**
 * The OpenAI-compatible LLM proxy. `resolve` and `forward` are separate so failover can try several
 * resolved models; the `forward*` helpers do both for one model.
 */
export interface LlmProxy {
  resolve(model: string): ResolvedModel;
  /**
   * POST `body` (with `model` replaced by the upstream name) to one resolved model. Resolves to the
   * provider's OK response, its body unread (SSE bytes pass through as they arrive); rejects with
   * LLM_PROVIDER_UNAVAILABLE (a ProviderUnavailableError) or LLM_PROVIDER_ERROR.
   */
  forward(
    target: ResolvedModel,
    path: UpstreamPath,
    body: Record<string, unknown>,
    context: LlmCallContext,
  ): Promise<Response>;
  forwardChatCompletion(body: ChatCompletionBody, context: LlmCallContext): Promise<Response>;
  forwardEmbeddings(body: EmbeddingsBody, context: LlmCallContext): Promise<Response>;
  /** The model an embeddings request names, else `llm.embedding_model`; LLM_MODEL_INVALID when neither. */
  embeddingModel(body: EmbeddingsBody): string;
  listModels(): ModelList;
}

/** Build the LLM proxy for one mesh config. */
export function createLlmProxy(options: LlmProxyOptions): LlmProxy {
  const fetchUpstream = options.fetch ?? fetch;
  const headersTimeoutMs = options.headersTimeoutMs ?? UPSTREAM_HEADERS_TIMEOUT_MS;
  const log = options.logger.child({ component: 'llm-proxy' });
  const resolve = (model: string) => resolveUpstreamModel(options, model);

  const forward: LlmProxy['forward'] = async (target, path, body, context) => {
    const started = performance.now();
    const callLog = log.child({ agent: context.agent, provider: target.provider, model: target.model });
    const elapsed = () => Math.round(performance.now() - started);
    const controller = new AbortController();
    const abortUpstream = () => controller.abort(context.signal?.reason);
    context.signal?.addEventListener('abort', abortUpstream, { once: true });
    const timer = setTimeout(
      () => controller.abort(new Error(`no response within ${headersTimeoutMs} ms`)),
      headersTimeoutMs,
    );
    const release = () => context.signal?.removeEventListener('abort', abortUpstream);

    let response: Response;
    try {
      response = await fetchUpstream(`${target.baseUrl}${path}`, {
        method: 'POST',
        headers: upstreamHeaders(target, body.stream === true),
        body: JSON.stringify({ ...body, model: target.upstreamModel }),
        signal: controller.signal,
      });
    } catch (error) {
      release();
      if (context.signal?.aborted) {
        callLog.info({ ms: elapsed() }, 'llm call aborted by client');
        throw new OpenLegionError('LLM_PROVIDER_UNAVAILABLE', 'the client went away', { cause: error });
      }
      const failure = unreachable(target, controller.signal.reason ?? error);
      callLog.warn(
        { status: null, ms: elapsed(), code: failure.code, err: failure.message },
        'llm call failed',
      );
      throw failure;
    } finally {
      clearTimeout(timer);
    }

    if (!response.ok) {
      release();
      const failure = await upstreamFailure(target, response);
      callLog.warn({ status: response.status, ms: elapsed(), code: failure.code }, 'llm call failed');
      throw failure;
    }
    return withCompletionLog(response, () => {
      release();
      callLog.info({ status: response.status, ms: elapsed() }, 'llm call');
    });
  };

  return {
    resolve,
    forward,
    forwardChatCompletion: (body, context) =>
      forward(resolve(body.model), '/chat/completions', body, context),
    forwardEmbeddings: (body, context) =>
      forward(resolve(embeddingModel(options.config, body)), '/embeddings', body, context),
    embeddingModel: (body) => embeddingModel(options.config, body),
    listModels: () => listConfiguredModels(options.config),
  };
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

function upstreamHeaders(target: ResolvedModel, stream: boolean): Record<string, string> {
  const headers: Record<string, string> = {
    'content-type': 'application/json',
    accept: stream ? 'text/event-stream' : 'application/json',
  };
  if (target.apiKey) headers.authorization = `Bearer ${target.apiKey}`;
  return headers;
}

/**
 * The same response, its body re-wrapped so `onSettled` runs once when the body has been read to
 * the end, failed or been cancelled. Chunks pass through one by one, unbuffered.
 */
function withCompletionLog(response: Response, onSettled: () => void): Response {
  const source = response.body;
  if (!source) {
    onSettled();
    return response;
  }
  let settled = false;
  const settle = () => {
    if (settled) return;
    settled = true;
    onSettled();
  };
  const reader = source.getReader();
  const body = new ReadableStream<Uint8Array>({
    async pull(controller) {
      try {
        const { done, value } = await reader.read();
        if (done) {
          settle();
          controller.close();
          return;
        }
        controller.enqueue(value);
      } catch (error) {
        settle();
        controller.error(error);
      }
    },
    async cancel(reason) {
      settle();
      await reader.cancel(reason);
    },
  });
  return new Response(body, {
    status: response.status,
    statusText: response.statusText,
    headers: response.headers,
  });
}
