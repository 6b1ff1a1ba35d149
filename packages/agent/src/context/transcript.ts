import { estimateTokens } from '@openlegion/memory';
import type { LlmMessage } from './context-manager.js';
import { groupMessages } from './message-groups.js';

/** Tool output is mostly bulk (file contents, pages, logs): the fast tier sees its head and tail. */
const TOOL_OUTPUT_CLIP_CHARS = 1_200;
/** A pasted document in a user or assistant message is clipped more gently. */
const TEXT_CLIP_CHARS = 6_000;
/** Input per fast-tier call; longer ranges are read in several calls, oldest first. */
export const FAST_TIER_INPUT_TOKENS = 16_000;

/** The text of a message's content, parts joined; images as a placeholder. */
export function contentText(content: LlmMessage['content']): string {
  if (content === null || content === undefined) return '';
  if (typeof content === 'string') return content;
  return content
    .map((part) => {
      if (part.type === 'text') return part.text;
      if (part.type === 'refusal') return part.refusal;
      return `[${part.type}]`;
    })
    .join('\n');
}

/** Keep the head and tail of a long text with a marker saying how much was left out. */
export function clipMiddle(text: string, maxChars: number): string {
  if (text.length <= maxChars) return text;
  const head = Math.floor(maxChars * 0.7);
  const tail = maxChars - head;
  return `${text.slice(0, head)}\n[… ${text.length - maxChars} characters left out …]\n${text.slice(-tail)}`;
}

/** One message as a transcript line for the fast tier. */
export function transcriptLine(message: LlmMessage): string {
  const text = contentText(message.content);
  if (message.role === 'tool') return `[tool result] ${clipMiddle(text, TOOL_OUTPUT_CLIP_CHARS)}`;
  if (message.role === 'assistant' && message.tool_calls && message.tool_calls.length > 0) {
    const calls = message.tool_calls
      .map((call) =>
        call.type === 'function'
          ? `${call.function.name}(${clipMiddle(call.function.arguments, 400)})`
          : `${call.type} tool call`,
      )
      .join(', ');
    return `${text ? `[assistant] ${clipMiddle(text, TEXT_CLIP_CHARS)}\n` : ''}[assistant calls] ${calls}`;
  }
  return `[${message.role}] ${clipMiddle(text, TEXT_CLIP_CHARS)}`;
}

/** Marks where the messages no flush has read begin, for the summariser's fact list. */
export const UNREAD_MARKER = '=== NOT YET SAVED ===';

/**
 * `messages` as transcripts of at most about {@link FAST_TIER_INPUT_TOKENS} each, split only
 * between message groups (a call and its result stay in one piece). With `unreadFrom`, the
 * {@link UNREAD_MARKER} line goes before the group holding that message.
 */
export function transcriptChunks(messages: readonly LlmMessage[], unreadFrom?: number): string[] {
  const chunks: string[] = [];
  let current: string[] = [];
  let currentTokens = 0;
  let marked = unreadFrom === undefined;
  for (const group of groupMessages(messages)) {
    let text = messages.slice(group.start, group.end).map(transcriptLine).join('\n');
    if (!marked && unreadFrom !== undefined && group.end > unreadFrom) {
      text = `${UNREAD_MARKER}\n${text}`;
      marked = true;
    }
    const tokens = estimateTokens(text);
    if (current.length > 0 && currentTokens + tokens > FAST_TIER_INPUT_TOKENS) {
      chunks.push(current.join('\n'));
      current = [];
      currentTokens = 0;
    }
    current.push(text);
    currentTokens += tokens;
  }
  if (current.length > 0) chunks.push(current.join('\n'));
  return chunks;
}
