import { hardPrune, hasCompactableMessages, runCompaction } from './compaction-step.js';
import type { ContextRequest, PreparedContext } from './context-manager.js';
import type { ContextServices } from './context-services.js';
import { type ContextState, EMPTY_CONTEXT_STATE } from './context-state-store.js';
import { buildView, type SplitConversation, splitConversation } from './context-view.js';
import { contextWindowFor } from './context-window.js';
import { runFlush } from './flush-step.js';
import { messageFingerprint } from './message-fingerprint.js';
import type { TokenCounter } from './token-counter.js';

/** Until the exact tokenizer has loaded, an estimate this far below `flush_at` is trusted as is. */
const ESTIMATE_TRUSTED_BELOW = 0.8;
/** After an overflow the window is taken to be a little under the prompt the provider refused. */
const OVERFLOW_WINDOW_SHARE = 0.95;
const MIN_WINDOW_TOKENS = 1_000;

/**
 * The context manager's logic for all conversations of one agent: measuring, the flush and
 * compaction triggers, the overflow and `/compact` paths, reset detection, one call at a time per
 * conversation.
 */
export class ConversationContexts {
  readonly #services: ContextServices;
  readonly #counter: TokenCounter;
  readonly #queues = new Map<string, Promise<unknown>>();
  /** The cycle whose flush was tried between thresholds (a failed try is not repeated every call). */
  readonly #flushTried = new Map<string, number>();
  /** Windows learned from overflow errors, per model: the provider knows better than the table. */
  readonly #learnedWindows = new Map<string, number>();

  constructor(services: ContextServices, counter: TokenCounter) {
    this.#services = services;
    this.#counter = counter;
  }

  serial<T>(conversationId: string, work: () => Promise<T>): Promise<T> {
    const previous = this.#queues.get(conversationId) ?? Promise.resolve();
    const next = previous.then(work, work);
    const settled = next.catch(() => undefined);
    this.#queues.set(conversationId, settled);
    void settled.then(() => {
      if (this.#queues.get(conversationId) === settled) this.#queues.delete(conversationId);
    });
    return next;
  }

  async prepare(request: ContextRequest): Promise<PreparedContext> {
    const { settings } = this.#services;
    const conversation = splitConversation(request.messages);
    let state = this.#load(request, conversation);
    let measured = await this.#measure(request, conversation, state);
    if (measured.usedRatio >= settings.compact_at) {
      // Flushes first when this cycle's flush has not run, or ran and failed (its one retry).
      state = await this.#compact(request, conversation, state);
      measured = await this.#measure(request, conversation, state);
    } else if (measured.usedRatio >= settings.flush_at && state.flushedCycle !== state.cycle) {
      // Tried once per cycle between the thresholds: a failing fast tier is not called on every step.
      if (this.#flushTried.get(request.conversationId) !== state.cycle) {
        const cycle = state.cycle;
        state = await runFlush(this.#services, request, conversation.body, state);
        // Set after: a flush cut short by the client leaving (it throws) is not a try.
        this.#flushTried.set(request.conversationId, cycle);
      }
    }
    return this.#withWrapUp(request, conversation, state, measured);
  }

  async compact(request: ContextRequest, reason: 'overflow' | 'directive'): Promise<PreparedContext> {
    const conversation = splitConversation(request.messages);
    const before = this.#load(request, conversation);
    if (reason === 'overflow') this.#learnWindow(request, await this.#measure(request, conversation, before));
    let state = await this.#compact(request, conversation, before);
    let measured = await this.#measure(request, conversation, state);
    if (reason === 'directive' && state.covered === before.covered && state.failures === before.failures) {
      const turns = this.#services.settings.keep_turns;
      request.emit({
        type: 'notice',
        message: `Nothing to compact: the conversation is within the last ${turns} turns, which stay as they are.`,
      });
    }
    if (reason === 'overflow' && measured.usedRatio >= 1) {
      state = await this.#flushIfDue(request, conversation, state);
      state = hardPrune(this.#services, request, conversation.body, state, {});
      measured = await this.#measure(request, conversation, state);
    }
    return this.#withWrapUp(request, conversation, state, measured);
  }

  /**
   * Compact when anything lies before the kept turns, flushing first when this cycle's flush has not
   * run (on every path, overflow included).
   */
  async #compact(
    request: ContextRequest,
    conversation: SplitConversation,
    state: ContextState,
  ): Promise<ContextState> {
    if (!hasCompactableMessages(conversation.body, state, this.#services.settings.keep_turns)) return state;
    const flushed = await this.#flushIfDue(request, conversation, state);
    return runCompaction(this.#services, request, conversation.body, flushed);
  }

  async #flushIfDue(
    request: ContextRequest,
    conversation: SplitConversation,
    state: ContextState,
  ): Promise<ContextState> {
    if (state.flushedCycle === state.cycle) return state;
    return runFlush(this.#services, request, conversation.body, state);
  }

  /** The stored state, or a fresh one when the conversation no longer holds what it covered (a reset). */
  #load(request: ContextRequest, conversation: SplitConversation): ContextState {
    const { body } = conversation;
    const state = this.#services.store.load(request.conversationId);
    const covers = state.covered === 0 || messageFingerprint(body[state.covered - 1]) === state.anchor;
    if (state.covered <= body.length && covers) {
      // A flush may have read a turn that then failed and was never stored: read it again later.
      return state.flushedThrough <= body.length ? state : { ...state, flushedThrough: body.length };
    }
    this.#services.logger.info(
      { conversation: request.conversationId, covered: state.covered, messages: body.length },
      'conversation was reset; its context state starts over',
    );
    const fresh: ContextState = { ...EMPTY_CONTEXT_STATE, facts: [] };
    this.#services.store.save(request.conversationId, fresh, this.#services.clock.now());
    return fresh;
  }

  #window(model: string): number {
    const configured = contextWindowFor(model, this.#services.settings.window_tokens);
    return Math.min(configured, this.#learnedWindows.get(model) ?? configured);
  }

  #learnWindow(request: ContextRequest, refused: PreparedContext): void {
    const learned = Math.max(MIN_WINDOW_TOKENS, Math.floor(refused.promptTokens * OVERFLOW_WINDOW_SHARE));
    if (learned >= this.#window(request.model)) return;
    this.#learnedWindows.set(request.model, learned);
    this.#services.logger.warn(
      { model: request.model, refused_tokens: refused.promptTokens, window_tokens: learned },
      'the model refused a prompt as too long; using a smaller window for it',
    );
  }

  async #measure(
    request: ContextRequest,
    conversation: SplitConversation,
    state: ContextState,
    wrapUpNote?: string,
  ): Promise<PreparedContext> {
    const window = this.#window(request.model);
    const messages = buildView(conversation, state, wrapUpNote);
    let promptTokens: number;
    if (this.#counter.isReady(request.model)) {
      promptTokens = await this.#counter.countPrompt(request.model, messages, request.tools);
    } else {
      // The exact table takes ~0.5 s to load: far from every threshold the estimate decides alone.
      const estimate = this.#counter.estimatePrompt(messages, request.tools);
      const trusted = estimate < window * this.#services.settings.flush_at * ESTIMATE_TRUSTED_BELOW;
      if (trusted) this.#counter.warm(request.model);
      promptTokens = trusted
        ? estimate
        : await this.#counter.countPrompt(request.model, messages, request.tools);
    }
    return { messages, promptTokens, usedRatio: promptTokens / window };
  }

  #withWrapUp(
    request: ContextRequest,
    conversation: SplitConversation,
    state: ContextState,
    measured: PreparedContext,
  ): Promise<PreparedContext> | PreparedContext {
    if (measured.usedRatio < this.#services.settings.wrap_up_at) return measured;
    const percent = Math.round(measured.usedRatio * 100);
    const note =
      `Context is ${percent}% full. Finish the current step and wrap up soon, or save important facts ` +
      'with memory_save now: older messages will leave the prompt.';
    return this.#measure(request, conversation, state, note);
  }
}
