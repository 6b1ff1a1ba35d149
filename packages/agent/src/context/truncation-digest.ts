import { estimateTokens } from '@openlegion/memory';
import type { LlmMessage } from './context-manager.js';
import { contentText } from './transcript.js';

/** Under `adaptive`, a range this tool-heavy… */
export const MOSTLY_TOOL_OUTPUT_SHARE = 0.8;
/** …with this little said around the tools is truncated: its digest line keeps nearly all of it. */
export const LITTLE_CONVERSATION_TOKENS = 500;
/** The digest of dropped ranges rides in every prompt: newest lines are kept within this. */
const DIGEST_MAX_CHARS = 2_000;
const REQUESTS_PER_LINE = 3;
const REQUEST_CHARS = 100;

/**
 * True for a stretch of tool work with little conversation around it: tool calls and results make
 * up most of its tokens, and what the user and the assistant said fits in a few lines. Summarising
 * it would cost a call and add little over the digest; a tool-heavy range with real conversation
 * in it is still summarised (tool output reaches the summariser clipped, so it stays cheap).
 */
export function isMostlyToolOutput(messages: readonly LlmMessage[]): boolean {
  let toolTokens = 0;
  let allTokens = 0;
  for (const message of messages) {
    let tokens = estimateTokens(contentText(message.content));
    if (message.role === 'assistant' && message.tool_calls) {
      for (const call of message.tool_calls) {
        const callTokens = estimateTokens(call.type === 'function' ? call.function.arguments : '');
        tokens += callTokens;
        toolTokens += callTokens;
      }
    }
    if (message.role === 'tool') toolTokens += tokens;
    allTokens += tokens;
  }
  const conversationTokens = allTokens - toolTokens;
  return (
    allTokens > 0 &&
    toolTokens / allTokens >= MOSTLY_TOOL_OUTPUT_SHARE &&
    conversationTokens <= LITTLE_CONVERSATION_TOKENS
  );
}

/**
 * One line saying what truncation dropped, built without a model: the range, the user's last few
 * requests in it (clipped) and the tools that ran. Better than nothing when the summariser is down.
 */
export function truncationLine(messages: readonly LlmMessage[], firstIndex: number): string {
  const requests = messages
    .filter((message) => message.role === 'user')
    .map((message) => contentText(message.content).replace(/\s+/g, ' ').trim())
    .filter((text) => text.length > 0)
    .slice(-REQUESTS_PER_LINE)
    .map((text) => `"${text.length > REQUEST_CHARS ? `${text.slice(0, REQUEST_CHARS)}…` : text}"`);
  const tools = new Map<string, number>();
  for (const message of messages) {
    if (message.role !== 'assistant' || !message.tool_calls) continue;
    for (const call of message.tool_calls) {
      const name = call.type === 'function' ? call.function.name : call.type;
      tools.set(name, (tools.get(name) ?? 0) + 1);
    }
  }
  const toolList = [...tools].map(([name, count]) => (count > 1 ? `${name} ×${count}` : name)).join(', ');
  const parts = [`messages ${firstIndex + 1}–${firstIndex + messages.length}`];
  if (requests.length > 0) parts.push(`the user asked ${requests.join('; ')}`);
  if (toolList) parts.push(`tools used: ${toolList}`);
  return `- ${parts.join('; ')}`;
}

/** The digest with `line` added, oldest lines dropped past the cap. */
export function appendDigest(digest: string, line: string): string {
  const lines = [...digest.split('\n').filter(Boolean), line];
  while (lines.length > 1 && lines.join('\n').length > DIGEST_MAX_CHARS) lines.shift();
  return lines.join('\n').slice(-DIGEST_MAX_CHARS);
}
