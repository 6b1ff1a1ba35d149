import type { ChatCompletionRequest, ChatMessage } from './openai-request.js';
import { messageText } from './openai-request.js';
import type { FakeLlmMatch, FakeLlmRule } from './script.js';

/** Texts of the role:'tool' messages that come after the last user message. */
function toolResultsSinceLastUser(messages: readonly ChatMessage[]): string[] {
  const lastUser = messages.findLastIndex((message) => message.role === 'user');
  return messages
    .slice(lastUser + 1)
    .filter((message) => message.role === 'tool')
    .map(messageText);
}

function includesIgnoringCase(haystack: string, needle: string): boolean {
  return haystack.toLowerCase().includes(needle.toLowerCase());
}

/** True when every condition given in `match` holds for the request; an empty match fits all. */
export function matchesRequest(match: FakeLlmMatch, request: ChatCompletionRequest): boolean {
  const lastMessage = request.messages.at(-1);
  const lastText = lastMessage ? messageText(lastMessage) : '';
  if (match.last_message !== undefined && !includesIgnoringCase(lastText, match.last_message)) return false;
  if (match.last_message_regex !== undefined && !new RegExp(match.last_message_regex).test(lastText)) {
    return false;
  }
  if (match.model !== undefined && request.model !== match.model) return false;
  if (match.role !== undefined && lastMessage?.role !== match.role) return false;
  if (match.tool_result !== undefined) {
    const needle = match.tool_result;
    if (!toolResultsSinceLastUser(request.messages).some((text) => includesIgnoringCase(text, needle))) {
      return false;
    }
  }
  return true;
}

/**
 * Picks the first rule that fits the request and still has uses left.
 * `uses[i]` counts how often rule i was picked; the caller increments it.
 */
export function selectRule(
  rules: readonly FakeLlmRule[],
  uses: readonly number[],
  request: ChatCompletionRequest,
): number | undefined {
  const index = rules.findIndex(
    (rule, i) =>
      (rule.times === undefined || (uses[i] ?? 0) < rule.times) && matchesRequest(rule.match, request),
  );
  return index === -1 ? undefined : index;
}
