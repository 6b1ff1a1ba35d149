import type { LlmMessage } from './context-manager.js';

/**
 * A run of messages that must stay together: a user message; an assistant message with its tool
 * calls and the tool results that answer them; a plain assistant message; or anything else. Cuts
 * are made only between groups, so a tool call is never separated from its result.
 */
export interface MessageGroup {
  /** Index of the first message (in the list that was grouped). */
  start: number;
  /** One past the last message. */
  end: number;
  kind: 'user' | 'assistant' | 'tool_round' | 'other';
}

/** Split `messages` (no system prompt) into groups, in order; every message is in exactly one. */
export function groupMessages(messages: readonly LlmMessage[]): MessageGroup[] {
  const groups: MessageGroup[] = [];
  let index = 0;
  while (index < messages.length) {
    const message = messages[index] as LlmMessage; // index < length
    const start = index++;
    if (message.role === 'assistant' && message.tool_calls && message.tool_calls.length > 0) {
      while (messages[index]?.role === 'tool') index++;
      groups.push({ start, end: index, kind: 'tool_round' });
    } else if (message.role === 'tool') {
      // A result with no call before it (an orphan): kept apart so the view can drop it.
      while (messages[index]?.role === 'tool') index++;
      groups.push({ start, end: index, kind: 'other' });
    } else {
      const kind = message.role === 'user' ? 'user' : message.role === 'assistant' ? 'assistant' : 'other';
      groups.push({ start, end: index, kind });
    }
  }
  return groups;
}

/**
 * Where the last `keepTurns` turns begin (a turn starts at a user message): the index of that user
 * message, or 0 when there are no more turns than that.
 */
export function keptTurnsStart(groups: readonly MessageGroup[], keepTurns: number): number {
  let turnsSeen = 0;
  for (let index = groups.length - 1; index >= 0; index--) {
    const group = groups[index] as MessageGroup;
    if (group.kind !== 'user') continue;
    if (++turnsSeen === keepTurns) return group.start;
  }
  return 0;
}

/** Where the last `count` groups begin (0 when there are no more than that). */
export function lastGroupsStart(groups: readonly MessageGroup[], count: number): number {
  return groups.length <= count ? 0 : (groups[groups.length - count] as MessageGroup).start;
}

/**
 * The messages with every tool call answered and every result attached to its call: a result whose
 * call is not in the list (cut off, or left over from an older bug) is dropped, and a call whose
 * result is missing gets a stub result saying so. Providers refuse a prompt with either, and one
 * bad pair would otherwise poison every later turn of the conversation.
 */
export function repairToolPairs(messages: readonly LlmMessage[]): LlmMessage[] {
  const repaired: LlmMessage[] = [];
  for (const group of groupMessages(messages)) {
    const slice = messages.slice(group.start, group.end);
    if (group.kind === 'other' && slice[0]?.role === 'tool') continue;
    if (group.kind !== 'tool_round') {
      repaired.push(...slice);
      continue;
    }
    const [call, ...results] = slice as [LlmMessage, ...LlmMessage[]];
    const callIds = call.role === 'assistant' ? (call.tool_calls ?? []).map((toolCall) => toolCall.id) : [];
    const answered = new Set<string>();
    repaired.push(call);
    for (const result of results) {
      if (result.role !== 'tool' || !callIds.includes(result.tool_call_id)) continue;
      if (answered.has(result.tool_call_id)) continue;
      answered.add(result.tool_call_id);
      repaired.push(result);
    }
    for (const id of callIds) {
      if (!answered.has(id)) {
        repaired.push({ role: 'tool', tool_call_id: id, content: 'No result was recorded for this call.' });
      }
    }
  }
  return repaired;
}
