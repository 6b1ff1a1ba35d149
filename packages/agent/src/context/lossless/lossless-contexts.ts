import type { Clock } from '@openlegion/infra/clock';
import type { Logger } from 'pino';
import type { ContextRequest, PreparedContext } from '../context-manager.js';
import type { ContextServices, ContextSettings } from '../context-services.js';
import { EMPTY_CONTEXT_STATE } from '../context-state-store.js';
import { type SplitConversation, splitConversation } from '../context-view.js';
import { contextWindowFor } from '../context-window.js';
import type { FastTierCall } from '../fast-tier.js';
import { runFlush } from '../flush-step.js';
import { messageFingerprint } from '../message-fingerprint.js';
import { groupMessages, lastGroupsStart } from '../message-groups.js';
import type { TokenCounter } from '../token-counter.js';
import type { LosslessSettings } from './lossless-settings.js';
import { buildLosslessView } from './lossless-view.js';
import {
  condenseFull,
  condenseOnce,
  type DagDeps,
  freshTailStart,
  messageTokens,
  summariseLeaves,
} from './summary-dag.js';
import type { SummaryNode, SummaryStore } from './summary-store.js';

/** Under pressure the tail shrinks to this many message groups (as the hard prune keeps). */
const PRESSURE_TAIL_GROUPS = 4;
/** After an overflow the window is taken to be a little under the prompt the provider refused. */
const OVERFLOW_WINDOW_SHARE = 0.95;
const MIN_WINDOW_TOKENS = 1_000;
/** Condensations tried under pressure in one call before the tail shrinks. */
const MAX_PRESSURE_CONDENSES = 8;

export interface LosslessServices {
  settings: ContextSettings;
  /**
   * The other strategies' services: the flush reads each span for facts (saved to memory,
   * MEMORY.md and the day's log) before it is summarised, as under `adaptive`.
   */
  flush?: ContextServices;
  lossless: LosslessSettings;
  call: FastTierCall;
  store: SummaryStore;
  clock: Clock;
  logger: Logger;
}

interface Assembly {
  active: SummaryNode[];
  covered: number;
  hidden: number;
}

/**
 * The `lossless` strategy: every message stays in the conversation store; older spans are
 * summarised into a DAG (leaves of messages, condensed summaries of summaries) and the prompt is
 * the active summaries plus a fresh tail. Summarises at `summariseAt` of the window once enough
 * lies outside the tail; over `forceAt` it condenses with the floor fanout, then shrinks the tail,
 * then leaves the oldest summaries out of the prompt (they stay searchable).
 */
export class LosslessContexts {
  readonly #services: LosslessServices;
  readonly #counter: TokenCounter;
  readonly #dag: DagDeps;
  /** Windows learned from overflow errors, per model: the provider knows better than the table. */
  readonly #learnedWindows = new Map<string, number>();

  constructor(services: LosslessServices, counter: TokenCounter) {
    this.#services = services;
    this.#counter = counter;
    this.#dag = {
      store: services.store,
      call: services.call,
      settings: services.lossless,
      clock: services.clock,
      logger: services.logger,
    };
  }

  async prepare(request: ContextRequest): Promise<PreparedContext> {
    const conversation = splitConversation(request.messages);
    let assembly = this.#load(request, conversation);
    let measured = await this.#measure(request, conversation, assembly);
    const { lossless } = this.#services;
    if (measured.usedRatio >= lossless.summariseAt) {
      const tail = freshTailStart(conversation.body, lossless.freshTailMessages);
      if (tail > assembly.covered) {
        let outside = 0;
        for (let index = assembly.covered; index < tail; index++)
          outside += messageTokens(conversation.body[index]);
        if (outside >= lossless.minOutsideTokens || measured.usedRatio >= lossless.forceAt) {
          assembly = await this.#summarise(request, conversation, assembly.covered, tail);
          measured = await this.#measure(request, conversation, assembly);
        }
      }
    }
    if (measured.usedRatio >= lossless.forceAt) {
      ({ assembly, measured } = await this.#relieve(request, conversation, assembly, measured));
    }
    return this.#withWrapUp(request, conversation, assembly, measured);
  }

  /** `/compact` or an overflow: summarise everything outside the fresh tail now, then relieve. */
  async compact(request: ContextRequest, reason: 'overflow' | 'directive'): Promise<PreparedContext> {
    const conversation = splitConversation(request.messages);
    let assembly = this.#load(request, conversation);
    if (reason === 'overflow')
      this.#learnWindow(request, await this.#measure(request, conversation, assembly));
    const tail = freshTailStart(conversation.body, this.#services.lossless.freshTailMessages);
    if (tail > assembly.covered) {
      assembly = await this.#summarise(request, conversation, assembly.covered, tail);
    } else if (reason === 'directive') {
      request.emit({
        type: 'notice',
        message: `Nothing to compact: the last ${this.#services.lossless.freshTailMessages} messages stay as they are.`,
      });
    }
    let measured = await this.#measure(request, conversation, assembly);
    if (reason === 'overflow' || measured.usedRatio >= this.#services.lossless.forceAt) {
      ({ assembly, measured } = await this.#relieve(request, conversation, assembly, measured));
    }
    return this.#withWrapUp(request, conversation, assembly, measured);
  }

  /** The stored DAG, or none when the conversation no longer holds what it summarised (a reset). */
  #load(request: ContextRequest, conversation: SplitConversation): Assembly {
    const { store } = this.#services;
    const active = store.active(request.conversationId);
    const last = active.reduce<SummaryNode | undefined>(
      (newest, node) => (newest === undefined || node.end > newest.end ? node : newest),
      undefined,
    );
    if (!last) return { active: [], covered: 0, hidden: 0 };
    const body = conversation.body;
    if (last.end <= body.length && messageFingerprint(body[last.end - 1]) === last.anchor) {
      return { active, covered: last.end, hidden: 0 };
    }
    this.#services.logger.info(
      { conversation: request.conversationId, covered: last.end, messages: body.length },
      'conversation was reset; its lcm summaries start over',
    );
    store.forget(request.conversationId);
    const flush = this.#services.flush;
    if (flush)
      flush.store.save(request.conversationId, { ...EMPTY_CONTEXT_STATE, facts: [] }, flush.clock.now());
    return { active: [], covered: 0, hidden: 0 };
  }

  async #summarise(
    request: ContextRequest,
    conversation: SplitConversation,
    from: number,
    to: number,
  ): Promise<Assembly> {
    await this.#flush(request, conversation, to);
    const leaves = await summariseLeaves(this.#dag, request, conversation.body, from, to);
    await condenseFull(this.#dag, request);
    this.#services.logger.info(
      { conversation: request.conversationId, messages: to - from, leaves: leaves.length },
      'lcm summarised older messages',
    );
    request.emit({
      type: 'notice',
      message: `Summarised ${to - from} older messages into the context store (nothing is lost: lcm_grep finds them).`,
    });
    return this.#load(request, conversation);
  }

  /**
   * Read the messages before `to` that no flush has read for facts, once: a failure is logged by
   * the flush and not retried (the messages stay in the store). Never blocks the summary.
   */
  async #flush(request: ContextRequest, conversation: SplitConversation, to: number): Promise<void> {
    const flush = this.#services.flush;
    if (!flush) return;
    const state = flush.store.load(request.conversationId);
    const unread = state.flushedThrough > conversation.body.length ? { ...state, flushedThrough: 0 } : state;
    if (unread.flushedThrough >= to) return;
    const after = await runFlush(flush, request, conversation.body.slice(0, to), unread);
    // One try per span: a failing fast tier must not re-read the growing history at every summary.
    if (after.flushedThrough < to) {
      flush.store.save(request.conversationId, { ...after, flushedThrough: to }, flush.clock.now());
    }
  }

  /** Over `forceAt`: condense with the floor fanout, then shrink the tail, then hide old summaries. */
  async #relieve(
    request: ContextRequest,
    conversation: SplitConversation,
    start: Assembly,
    startMeasured: PreparedContext,
  ): Promise<{ assembly: Assembly; measured: PreparedContext }> {
    const limit = this.#services.lossless.forceAt;
    let assembly = start;
    let measured = startMeasured;
    for (let tries = 0; measured.usedRatio >= limit && tries < MAX_PRESSURE_CONDENSES; tries++) {
      if (!(await condenseOnce(this.#dag, request))) break;
      assembly = this.#load(request, conversation);
      measured = await this.#measure(request, conversation, assembly);
    }
    if (measured.usedRatio >= limit) {
      const tail = lastGroupsStart(groupMessages(conversation.body), PRESSURE_TAIL_GROUPS);
      if (tail > assembly.covered) {
        assembly = await this.#summarise(request, conversation, assembly.covered, tail);
        measured = await this.#measure(request, conversation, assembly);
      }
    }
    while (measured.usedRatio >= limit && assembly.hidden < assembly.active.length) {
      assembly = { ...assembly, hidden: assembly.hidden + 1 };
      measured = await this.#measure(request, conversation, assembly);
    }
    if (assembly.hidden > 0) {
      this.#services.logger.warn(
        { conversation: request.conversationId, hidden: assembly.hidden },
        'lcm left the oldest summaries out of the prompt for room',
      );
    }
    return { assembly, measured };
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
    assembly: Assembly,
    wrapUpNote?: string,
  ): Promise<PreparedContext> {
    const window = this.#window(request.model);
    const messages = buildLosslessView(
      conversation,
      assembly.active,
      assembly.covered,
      assembly.hidden,
      wrapUpNote,
    );
    let promptTokens: number;
    if (this.#counter.isReady(request.model)) {
      promptTokens = await this.#counter.countPrompt(request.model, messages, request.tools);
    } else {
      // The exact table takes ~0.5 s to load: well below the threshold the estimate decides alone.
      const estimate = this.#counter.estimatePrompt(messages, request.tools);
      const trusted = estimate < window * this.#services.lossless.summariseAt * 0.8;
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
    assembly: Assembly,
    measured: PreparedContext,
  ): Promise<PreparedContext> | PreparedContext {
    if (measured.usedRatio < this.#services.settings.wrap_up_at) return measured;
    const percent = Math.round(measured.usedRatio * 100);
    const note =
      `Context is ${percent}% full. Finish the current step and wrap up soon: older messages will be ` +
      'summarised (lcm_grep and lcm_expand get them back).';
    return this.#measure(request, conversation, assembly, note);
  }
}
