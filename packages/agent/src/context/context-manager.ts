import type { ChatEvent } from '@openlegion/protocol';
import type OpenAI from 'openai';

/** One message as the agent sends it to the host's `/v1` proxy. */
export type LlmMessage = OpenAI.Chat.Completions.ChatCompletionMessageParam;

/** A conversation about to be sent to the LLM. */
export interface ContextRequest {
  conversationId: string;
  /** The model the turn calls (`provider/model`): it decides the window and the token counter. */
  model: string;
  /**
   * The system prompt first, then the whole stored conversation (append-only, so positions are
   * stable), then this turn so far (the user message and any tool rounds).
   */
  messages: LlmMessage[];
  /** The tool definitions sent with the call: they take room in the window too. */
  tools?: readonly OpenAI.Chat.Completions.ChatCompletionTool[];
  emit: (event: ChatEvent) => void;
  signal: AbortSignal;
  traceId?: string;
}

/** What to send, and how full the window is. */
export interface PreparedContext {
  /**
   * The system prompt, a summary of compacted turns when there is one, then the recent messages.
   * An assistant message with tool calls is never separated from its tool results.
   */
  messages: LlmMessage[];
  /** Prompt tokens as counted before sending. */
  promptTokens: number;
  /** `promptTokens` over the model's window (0..1+). */
  usedRatio: number;
}

/**
 * Keeps a conversation inside its model's context window: at `flush_at` (default 60%) a silent
 * flush turn saves facts to memory, once per compaction cycle; at `compact_at` (70%) older turns
 * are summarised on the fast tier; at `wrap_up_at` (80%) the prompt asks the model to wrap up.
 * The stored conversation is never changed: compaction is a view over it, persisted so a restart
 * does not redo it.
 */
export interface ContextManager {
  /** Before each LLM call of a turn. */
  prepare(request: ContextRequest): Promise<PreparedContext>;
  /** Compact now: after `LLM_CONTEXT_OVERFLOW` (then the call is retried once) or the `/compact` directive. */
  compact(request: ContextRequest, reason: 'overflow' | 'directive'): Promise<PreparedContext>;
}
