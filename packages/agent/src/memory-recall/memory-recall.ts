import { performance } from 'node:perf_hooks';
import { estimateTokens, MAX_QUERY_CHARS, type MemoryEngine } from '@openlegion/memory';
import type { ChatEvent } from '@openlegion/protocol';
import type { Logger } from 'pino';
import type { LlmMessage } from '../context/context-manager.js';
import { contentText } from '../context/transcript.js';
import { HeldText } from './held-memories.js';
import { formatRecallBlock, type RecalledMemory, type RecallItem } from './recall-block.js';
import { RecallViews } from './recall-views.js';
import { interleave, type SharedRecallSource } from './shared-recall.js';

/** Candidates asked of the engine: more than fit a default budget, so dropping held ones leaves enough. */
export const RECALL_CANDIDATES = 8;
/** Stored messages after the last view (the previous turn's answer) that are in the prompt too. */
const TAIL_AFTER_VIEW = 3;

/** What one turn's recall found and injected: the block, and the facts `/debug` and traces show. */
export interface TurnRecall {
  /** The block to put before the user's message; empty when nothing is recalled. */
  text: string;
  memories: RecalledMemory[];
  /** Characters and estimated tokens of the block. */
  chars: number;
  tokens: number;
  /** Time the recall added to the turn (search, dedup, formatting). */
  ms: number;
  /** The budget (`agents.NAME.memory.recall_chars`); 0 means recall is off and nothing was searched. */
  budgetChars: number;
  /** Hits dropped because the prompt already holds them. */
  held: number;
  /** Set when the memory store failed: the turn goes on without recall. */
  error?: string;
}

export interface RecallInput {
  conversationId: string;
  /** The turn's trace, sent with the shared scopes' searches. */
  traceId?: string;
  /** The user's message (or the task): what the search is for. */
  message: string;
  systemPrompt: string;
  /** The stored conversation before this turn. */
  history: readonly LlmMessage[];
}

export interface MemoryRecall {
  recall(input: RecallInput): Promise<TurnRecall>;
  /** Views the context manager prepared, remembered so recall knows what the prompt still holds. */
  readonly views: RecallViews;
}

export interface MemoryRecallDeps {
  /** The agent's memory engine (opened on first use; opening may throw). */
  memory: () => MemoryEngine;
  /** `agents.NAME.memory.recall_chars`: the block's budget; 0 turns recall off. */
  recallChars: number;
  /** The agent's own scope (`agent:NAME`): its own memory_save notes are trusted, the rest fenced. */
  ownScope: string;
  /** The shared scopes this agent may read (through the host); none when absent. */
  shared?: SharedRecallSource;
  logger: Logger;
}

/**
 * Automatic recall (seed 001): before a turn, the memories most relevant to its message that the
 * prompt does not already hold, formatted with their provenance within the character budget. A
 * failing store never fails the turn: it is logged and the turn goes on without recall.
 */
export function createMemoryRecall(deps: MemoryRecallDeps): MemoryRecall {
  const views = new RecallViews();
  const ownScope = deps.ownScope;
  return {
    views,
    async recall(input) {
      const started = performance.now();
      const empty = (extra: Partial<TurnRecall> = {}): TurnRecall => ({
        text: '',
        memories: [],
        chars: 0,
        tokens: 0,
        ms: performance.now() - started,
        budgetChars: deps.recallChars,
        held: 0,
        ...extra,
      });
      const query = input.message.trim().slice(0, MAX_QUERY_CHARS);
      if (deps.recallChars <= 0 || query === '') return empty();
      try {
        const [own, ...shared] = await Promise.all([
          deps.memory().search({ query, limit: RECALL_CANDIDATES }),
          ...(deps.shared?.scopes ?? []).map((scope) => searchShared(deps, scope, query, input)),
        ]);
        const hits = interleave<RecallItem>([own?.hits.map((hit) => hit.item) ?? [], ...shared]);
        const held = new HeldText(heldTexts(input, views.last(input.conversationId)));
        const fresh = hits.filter((item) => !held.holds(item));
        const block = formatRecallBlock(fresh, { budgetChars: deps.recallChars, ownScope });
        return {
          text: block.text,
          memories: block.memories,
          chars: block.text.length,
          tokens: block.text === '' ? 0 : estimateTokens(block.text),
          ms: performance.now() - started,
          budgetChars: deps.recallChars,
          held: hits.length - fresh.length,
        };
      } catch (error) {
        deps.logger.warn(
          { err: error, conversation: input.conversationId },
          'memory recall failed; the turn goes on without it',
        );
        return empty({ error: error instanceof Error ? error.message : String(error) });
      }
    },
  };
}

/** Candidates asked of each shared scope: fewer than the agent's own, whose memory comes first. */
const SHARED_CANDIDATES = 4;

/** A shared scope's hits; a failing host or scope is logged and recall goes on without it. */
async function searchShared(
  deps: MemoryRecallDeps,
  scope: string,
  query: string,
  input: RecallInput,
): Promise<RecallItem[]> {
  try {
    return (await deps.shared?.search(scope, query, SHARED_CANDIDATES, input.traceId)) ?? [];
  } catch (error) {
    deps.logger.warn(
      { err: error, scope, conversation: input.conversationId },
      'shared memory recall failed; the turn goes on without that scope',
    );
    return [];
  }
}

/** Everything the next prompt holds besides this turn's recall. */
function heldTexts(input: RecallInput, lastView: string | undefined): string[] {
  const texts = [input.systemPrompt, input.message];
  // Without a view (new conversation, or a restart) the whole stored history counts: never repeat.
  const seen = lastView === undefined ? input.history : input.history.slice(-TAIL_AFTER_VIEW);
  if (lastView !== undefined) texts.push(lastView);
  for (const message of seen) texts.push(contentText(message.content));
  return texts;
}

/** The user message with the turn's recall block before it: stored so later turns see it is held. */
export function withRecallBlock(message: string, recall: Pick<TurnRecall, 'text'> | undefined): string {
  return recall && recall.text !== '' ? `${recall.text}\n\n${message}` : message;
}

/** The turn's `recall` event: what `/debug` shows and the host's trace records. */
export function recallEvent(recall: TurnRecall): Extract<ChatEvent, { type: 'recall' }> {
  return {
    type: 'recall',
    memories: recall.memories.map((memory) => ({
      id: memory.id,
      category: memory.category,
      scope: memory.scope,
      source: memory.source,
      saved_at: memory.savedAt,
      chars: memory.chars,
      clipped: memory.clipped,
      untrusted: memory.untrusted,
    })),
    chars: recall.chars,
    tokens: recall.tokens,
    ms: Math.round(recall.ms * 100) / 100,
    budget_chars: recall.budgetChars,
    held: recall.held,
    ...(recall.error !== undefined ? { error: recall.error } : {}),
  };
}
