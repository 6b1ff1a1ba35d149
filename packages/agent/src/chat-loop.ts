import type { AgentSelf, ChatEvent } from '@openlegion/protocol';
import type OpenAI from 'openai';
import { APIError } from 'openai/core/error';
import type { Logger } from 'pino';
import type { ConversationStore } from './conversation-store.js';

type LlmMessage = OpenAI.Chat.Completions.ChatCompletionMessageParam;

/** One user turn of a conversation. */
export interface ChatTurn {
  message: string;
  conversationId: string;
  /** Where the work entered the mesh; sent with each LLM call so the host's trace shows it. */
  traceId?: string;
}

export type EmitChatEvent = (event: ChatEvent) => void;

/** Answers chat turns; the server owns transport, concurrency and auth. */
export interface ChatLoop {
  /**
   * Run one turn: stream `text_delta`… `usage`, then `done`, or `error` on an LLM failure. Resolves
   * once the turn is over; an aborted `signal` ends it without an event (the client is gone).
   */
  runChat(turn: ChatTurn, emit: EmitChatEvent, signal: AbortSignal): Promise<void>;
}

export interface ChatLoopDeps {
  self: AgentSelf;
  store: ConversationStore;
  /** The SDK client pointed at the host's `/v1` proxy; asked once per turn, so it may load lazily. */
  llm: () => Promise<OpenAI>;
  logger: Logger;
  /** A stream silent this long is given up (a stalled upstream must not hold the conversation). */
  streamIdleTimeoutMs?: number;
}

/** Long enough for a reasoning model thinking between chunks. */
const STREAM_IDLE_TIMEOUT_MS = 300_000;

/** The system prompt an agent speaks under, from what the host says about it. */
export function buildSystemPrompt(self: AgentSelf): string {
  return `You are ${self.agent}, an agent in the ${self.mesh} mesh. Role: ${self.role}. ${self.soul}`.trim();
}

/**
 * The agent's chat loop. A turn is stored (user and assistant message together) only when the answer
 * completes, so a failed or aborted turn leaves the conversation as it was and can simply be re-sent.
 */
export function createChatLoop(deps: ChatLoopDeps): ChatLoop {
  const { self, store, logger } = deps;
  return {
    async runChat(turn, emit, signal) {
      const log = logger.child({ conversation: turn.conversationId });
      const messages: LlmMessage[] = [
        { role: 'system', content: buildSystemPrompt(self) },
        ...store.list(turn.conversationId),
        { role: 'user', content: turn.message },
      ];
      const startedMs = Date.now();
      const llm = await deps.llm();
      let text: string;
      try {
        const idleTimeoutMs = deps.streamIdleTimeoutMs ?? STREAM_IDLE_TIMEOUT_MS;
        text = await streamCompletion(
          { llm, model: self.model, messages, idleTimeoutMs, traceId: turn.traceId },
          emit,
          signal,
        );
      } catch (error) {
        if (signal.aborted) {
          log.info({ ms: Date.now() - startedMs }, 'chat aborted by client');
          return;
        }
        const failure = describeLlmFailure(error, llm.apiKey ?? '');
        log.warn({ err: error, ms: Date.now() - startedMs }, 'llm call failed');
        emit({ type: 'error', code: 'AGENT_LLM_FAILED', ...failure });
        return;
      }
      store.append(turn.conversationId, [
        { role: 'user', content: turn.message },
        { role: 'assistant', content: text },
      ]);
      log.info({ model: self.model, ms: Date.now() - startedMs }, 'chat done');
      emit({ type: 'done', conversation_id: turn.conversationId, text });
    },
  };
}

interface CompletionRequest {
  llm: OpenAI;
  model: string;
  messages: LlmMessage[];
  idleTimeoutMs: number;
  traceId?: string | undefined;
}

/** One streamed completion: emits deltas and usage, returns the full text. Tool rounds will loop this. */
async function streamCompletion(
  request: CompletionRequest,
  emit: EmitChatEvent,
  signal: AbortSignal,
): Promise<string> {
  const { llm, model, messages, idleTimeoutMs, traceId } = request;
  const idle = new AbortController();
  const stall = () => idle.abort(new Error(`the LLM stream sent nothing for ${idleTimeoutMs} ms`));
  let idleTimer = setTimeout(stall, idleTimeoutMs);
  try {
    const stream = await llm.chat.completions.create(
      { model, messages, stream: true, stream_options: { include_usage: true } },
      {
        signal: AbortSignal.any([signal, idle.signal]),
        ...(traceId ? { headers: { 'x-trace-id': traceId } } : {}),
      },
    );
    let text = '';
    let finished = false;
    for await (const chunk of stream) {
      clearTimeout(idleTimer);
      idleTimer = setTimeout(stall, idleTimeoutMs);
      const choice = chunk.choices[0];
      if (choice?.delta.content) {
        text += choice.delta.content;
        emit({ type: 'text_delta', text: choice.delta.content });
      }
      if (choice?.finish_reason) finished = true;
      if (chunk.usage) {
        emit({
          type: 'usage',
          model: chunk.model || model,
          prompt_tokens: chunk.usage.prompt_tokens,
          completion_tokens: chunk.usage.completion_tokens,
        });
      }
    }
    // The SDK ends the iteration quietly on abort; a cut upstream may end it without a finish reason.
    // Neither is a complete answer, and only a complete answer may be stored.
    signal.throwIfAborted();
    idle.signal.throwIfAborted();
    if (!finished) throw new Error('the LLM stream ended before the answer was finished');
    return text;
  } finally {
    clearTimeout(idleTimer);
  }
}

/**
 * Upstream status and message for the client. An HTTP answer is retryable when it is 429 or 5xx; a
 * transport fault (refused, timed out, cut off, stalled) always is.
 */
function describeLlmFailure(error: unknown, token: string): { message: string; retryable: boolean } {
  const reason = error instanceof Error ? error.message : String(error);
  // The SDK's message already starts with the status ("500 ..."); the token is scrubbed in case a
  // misbehaving upstream echoed the request's headers.
  const raw = `LLM call failed: ${reason}`;
  const message = token === '' ? raw : raw.replaceAll(token, '[redacted]');
  const status = error instanceof APIError ? error.status : undefined;
  return { message, retryable: status === undefined || status === 429 || status >= 500 };
}
