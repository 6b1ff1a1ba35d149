import type { LlmMessage } from './context-manager.js';
import type { ContextState } from './context-state-store.js';
import { repairToolPairs } from './message-groups.js';

/** Newest saved facts shown in the prompt, within this many characters. */
const FACTS_BLOCK_MAX_CHARS = 3_000;

/** A request's messages split into the system prompt (when there is one) and the conversation. */
export interface SplitConversation {
  system: LlmMessage | undefined;
  /** Stored conversation, then this turn so far; positions are stable across calls. */
  body: readonly LlmMessage[];
}

export function splitConversation(messages: readonly LlmMessage[]): SplitConversation {
  const first = messages[0];
  return first?.role === 'system' || first?.role === 'developer'
    ? { system: first, body: messages.slice(1) }
    : { system: undefined, body: messages };
}

/**
 * What is sent: one system message (the system prompt, then the conversation memory when part of
 * the conversation is compacted, then the wrap-up note when one is due), then the messages the
 * compaction does not cover, with every tool call and result paired. One system message, not
 * several, because not every provider accepts a second one mid-prompt.
 */
export function buildView(
  conversation: SplitConversation,
  state: ContextState,
  wrapUpNote?: string,
): LlmMessage[] {
  const sections = [memoryBlock(state), wrapUpNote].filter((text): text is string => Boolean(text));
  const recent = repairToolPairs(conversation.body.slice(state.covered));
  if (sections.length === 0) return conversation.system ? [conversation.system, ...recent] : recent;
  return [withSections(conversation.system, sections.join('\n\n')), ...recent];
}

/**
 * The conversation memory section; empty until part of the conversation is compacted (before that,
 * the saved facts are still in the messages themselves).
 */
export function memoryBlock(state: ContextState): string {
  if (state.covered === 0) return '';
  const parts = [
    '## Conversation memory',
    `The first ${state.covered} messages of this conversation were compacted; this is what they held.`,
  ];
  if (state.userSummary) parts.push(`USER PROFILE:\n${state.userSummary}`);
  if (state.conversationSummary) parts.push(`CONVERSATION CONTEXT:\n${state.conversationSummary}`);
  if (state.droppedDigest) parts.push(`DROPPED WITHOUT A SUMMARY:\n${state.droppedDigest}`);
  const facts = factLines(state);
  if (facts) parts.push(`FACTS SAVED FROM THIS CONVERSATION:\n${facts}`);
  return parts.join('\n\n');
}

function factLines(state: ContextState): string {
  const lines: string[] = [];
  let chars = 0;
  for (const fact of [...state.facts].reverse()) {
    const line = `- ${fact.key}: ${fact.value}`;
    if (chars + line.length > FACTS_BLOCK_MAX_CHARS) break;
    lines.unshift(line);
    chars += line.length + 1;
  }
  return lines.join('\n');
}

function withSections(system: LlmMessage | undefined, text: string): LlmMessage {
  if (!system) return { role: 'system', content: text };
  if (system.role !== 'system' && system.role !== 'developer') return system;
  if (typeof system.content === 'string') return { ...system, content: `${system.content}\n\n${text}` };
  return { ...system, content: [...system.content, { type: 'text', text }] };
}
