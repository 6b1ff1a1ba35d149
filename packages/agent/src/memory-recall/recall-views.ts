import type { ContextManager, LlmMessage, PreparedContext } from '../context/context-manager.js';
import { contentText } from '../context/transcript.js';

/** Conversations whose last view is kept; an older one falls back to its whole stored history. */
const MAX_VIEWS = 16;

/**
 * The text of what each conversation last sent the model (after compaction): what the prompt holds
 * when the next turn begins. A memory recalled into a turn that compaction has since summarised
 * away is no longer in view, so it may be recalled again.
 */
export class RecallViews {
  readonly #views = new Map<string, string>();

  remember(conversationId: string, messages: readonly LlmMessage[]): void {
    this.#views.delete(conversationId);
    this.#views.set(conversationId, messages.map((message) => contentText(message.content)).join('\n'));
    if (this.#views.size > MAX_VIEWS) {
      const oldest = this.#views.keys().next().value;
      if (oldest !== undefined) this.#views.delete(oldest);
    }
  }

  /** The last view's text, or undefined when none is known (a new conversation, or after a restart). */
  last(conversationId: string): string | undefined {
    return this.#views.get(conversationId);
  }
}

/** The context manager, with each view it prepares remembered for recall. */
export function withRecallViews(inner: ContextManager, views: RecallViews): ContextManager {
  const seen = (conversationId: string, prepared: PreparedContext) => {
    views.remember(conversationId, prepared.messages);
    return prepared;
  };
  return {
    prepare: async (request) => seen(request.conversationId, await inner.prepare(request)),
    compact: async (request, reason) => seen(request.conversationId, await inner.compact(request, reason)),
  };
}
