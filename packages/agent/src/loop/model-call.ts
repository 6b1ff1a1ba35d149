import type { Clock } from '@openlegion/infra/clock';
import type OpenAI from 'openai';
import type { Logger } from 'pino';
import type { ContextManager, ContextRequest } from '../context/context-manager.js';
import { isContextOverflow, isRetryableLlmError } from './llm-failure.js';
import { type LlmReply, type LlmToolDefinition, streamCompletion } from './llm-stream.js';

/** The model could not be asked (after retries); `cause` is what the SDK or the stream threw. */
export class LlmCallFailedError extends Error {
  constructor(cause: unknown) {
    super(cause instanceof Error ? cause.message : String(cause), { cause });
    this.name = new.target.name;
  }
}

/** Waits before the 2nd, 3rd and 4th attempt of a retryable failure. */
export const LLM_RETRY_DELAYS_MS: readonly number[] = [1_000, 4_000, 10_000];
/** Long enough for a reasoning model thinking between chunks. */
export const STREAM_IDLE_TIMEOUT_MS = 300_000;

export interface ModelCallDeps {
  llm: () => Promise<OpenAI>;
  contextManager: ContextManager;
  clock: Pick<Clock, 'sleep'>;
  logger: Logger;
  retryDelaysMs?: readonly number[];
  streamIdleTimeoutMs?: number;
}

/**
 * One model answer for the conversation so far: the context manager prepares what is sent;
 * retryable failures are tried again after each of `retryDelaysMs`; a context overflow compacts
 * the conversation and is tried once more.
 */
export async function callModel(
  deps: ModelCallDeps,
  request: ContextRequest,
  tools: LlmToolDefinition[],
): Promise<LlmReply> {
  const llm = await deps.llm();
  const delays = deps.retryDelaysMs ?? LLM_RETRY_DELAYS_MS;
  // Tool definitions count against the window too.
  const contextRequest: ContextRequest = { ...request, tools };
  let prepared = await deps.contextManager.prepare(contextRequest);
  let compacted = false;
  let retries = 0;
  for (;;) {
    try {
      return await streamCompletion(
        {
          llm,
          model: request.model,
          messages: prepared.messages,
          tools,
          idleTimeoutMs: deps.streamIdleTimeoutMs ?? STREAM_IDLE_TIMEOUT_MS,
          traceId: request.traceId,
        },
        request.emit,
        request.signal,
      );
    } catch (error) {
      if (request.signal.aborted) throw error;
      if (isContextOverflow(error) && !compacted) {
        deps.logger.warn(
          { conversation: request.conversationId },
          'context overflow: compacting and retrying',
        );
        // The context manager tells the user what it did (flush, summary or truncation).
        prepared = await deps.contextManager.compact(contextRequest, 'overflow');
        compacted = true;
        continue;
      }
      const delayMs = delays[retries];
      if (delayMs === undefined || !isRetryableLlmError(error)) throw new LlmCallFailedError(error);
      retries += 1;
      deps.logger.warn({ err: error, retry: retries, delay_ms: delayMs }, 'llm call failed; retrying');
      await deps.clock.sleep(delayMs, request.signal);
    }
  }
}
