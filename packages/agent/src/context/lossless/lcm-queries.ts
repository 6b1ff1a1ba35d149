import { estimateTokens } from '@openlegion/memory';
import { OpenLegionError } from '@openlegion/protocol';
import { contentText } from '../transcript.js';
import {
  MAX_TERM_CHARS,
  MAX_TERMS,
  type StoredLine,
  type SummaryNode,
  type SummaryStore,
} from './summary-store.js';

/** Token caps on what each lcm answer holds: one answer must not flood the prompt it lands in. */
export const LCM_GREP_MAX_TOKENS = 2_000;
export const LCM_DESCRIBE_MAX_TOKENS = 3_000;
export const LCM_EXPAND_MAX_TOKENS = 4_000;
/** Longest search pattern (characters). */
export const LCM_PATTERN_MAX_CHARS = 500;
/** Characters of one hit's text shown around the first term. */
const SNIPPET_CHARS = 240;
/** A single message longer than this is cut in an expansion (the rest is said to be cut). */
const EXPANDED_MESSAGE_MAX_CHARS = 6_000;

/**
 * The pattern's words (up to {@link MAX_TERMS}, each at most {@link MAX_TERM_CHARS} characters).
 *
 * @throws OpenLegionError REQUEST_INVALID for an empty pattern or one longer than
 *   {@link LCM_PATTERN_MAX_CHARS}.
 */
export function grepTerms(pattern: string): string[] {
  if (pattern.length > LCM_PATTERN_MAX_CHARS) {
    throw new OpenLegionError(
      'REQUEST_INVALID',
      `the pattern is ${pattern.length} characters; use at most ${LCM_PATTERN_MAX_CHARS} (a few distinctive words)`,
    );
  }
  const terms = pattern.split(/\s+/).filter((term) => term !== '');
  if (terms.length === 0) {
    throw new OpenLegionError('REQUEST_INVALID', 'the pattern is empty; give one or more words to look for');
  }
  if (terms.length > MAX_TERMS || terms.some((term) => term.length > MAX_TERM_CHARS)) {
    throw new OpenLegionError(
      'REQUEST_INVALID',
      `use at most ${MAX_TERMS} words of at most ${MAX_TERM_CHARS} characters each`,
    );
  }
  return terms;
}

/** Messages and summaries holding every word of `pattern`, newest first, within the token cap. */
export function lcmGrep(
  store: SummaryStore,
  request: { pattern: string; limit: number; conversationId?: string | undefined },
): string {
  const terms = grepTerms(request.pattern);
  const summaries = store.grepSummaries(terms, request.limit, request.conversationId);
  const messages = store.grepMessages(terms, request.limit, request.conversationId);
  if (summaries.length === 0 && messages.length === 0)
    return `No messages or summaries hold "${request.pattern}".`;
  const lines = [
    ...summaries.map(
      (node) =>
        `summary S${node.id} (${node.conversationId}, depth ${node.depth}, messages ${node.start + 1}–${node.end}): ${snippet(node.content, terms[0] ?? '')}`,
    ),
    ...messages.map(
      (line) =>
        `message #${line.seq} (${line.conversationId}, ${line.role}): ${snippet(lineText(line), terms[0] ?? '')}`,
    ),
  ];
  return capLines(
    `${summaries.length} summaries and ${messages.length} messages match; lcm_expand a summary (or lcm_expand with conversation and from) to read around a hit:`,
    lines,
    LCM_GREP_MAX_TOKENS,
    'narrow the pattern or lower limit to see the rest',
  );
}

/** A summary's span, depth, parent and children, and its text, within the token cap. */
export function lcmDescribe(store: SummaryStore, id: number, onlyConversation?: string): string {
  const node = summaryOrThrow(store, id, onlyConversation);
  const children = node.children
    .map((child) => store.get(child))
    .filter((child): child is SummaryNode => child !== undefined);
  const head = [
    `S${node.id}: ${node.depth === 0 ? 'leaf' : 'condensed'} summary, depth ${node.depth}, conversation ${node.conversationId}`,
    `messages ${node.start + 1}–${node.end} (${node.end - node.start} messages), ${node.tokens} tokens, made ${node.mode}`,
    `parent: ${node.parentId === null ? 'none (shown in the prompt)' : `S${node.parentId}`}`,
    `children: ${node.children.length === 0 ? 'none (a leaf: lcm_expand gives its messages)' : node.children.map((child) => `S${child}`).join(', ')}`,
  ];
  if (children.length < node.children.length) {
    head.push(`(${node.children.length - children.length} children are unreadable and were skipped)`);
  }
  const lines = [
    ...node.content.split('\n'),
    ...children.map(
      (child) => `- S${child.id} messages ${child.start + 1}–${child.end}: ${snippet(child.content, '')}`,
    ),
  ];
  return capLines(head.join('\n'), lines, LCM_DESCRIBE_MAX_TOKENS, 'lcm_describe a child for its part');
}

/**
 * The messages a summary stands for (or a conversation's messages from `from`), oldest first,
 * within the token cap; a cut answer says where to go on.
 */
export function lcmExpand(
  store: SummaryStore,
  request: {
    id?: number | undefined;
    conversationId?: string | undefined;
    from?: number | undefined;
    /** Summaries of other conversations are treated as unknown (the agent's tools in a turn). */
    onlyConversation?: string | undefined;
  },
): string {
  let conversationId: string;
  let start: number;
  let end: number;
  let label: string;
  if (request.id !== undefined) {
    const node = summaryOrThrow(store, request.id, request.onlyConversation);
    conversationId = node.conversationId;
    start = node.start;
    end = node.end;
    label = `S${node.id} (messages ${start + 1}–${end})`;
  } else if (request.conversationId !== undefined) {
    conversationId = request.conversationId;
    start = 0;
    end = Number.MAX_SAFE_INTEGER;
    label = `conversation ${conversationId}`;
  } else {
    throw new OpenLegionError(
      'REQUEST_INVALID',
      'give a summary id, or a conversation and a message number (from)',
    );
  }
  const from = Math.max(start, (request.from ?? start + 1) - 1);
  if (from >= end) {
    throw new OpenLegionError('REQUEST_INVALID', `message ${from + 1} is past the end of ${label}`);
  }
  const messages = store.messages(conversationId, from, end);
  if (messages.length === 0) return `${label}: no stored messages from #${from + 1}.`;
  const out: string[] = [];
  let tokens = 0;
  let last = from;
  for (const message of messages) {
    const text = `#${message.seq} ${message.role}: ${clip(lineText(message), EXPANDED_MESSAGE_MAX_CHARS)}`;
    const cost = estimateTokens(text) + 1;
    if (out.length > 0 && tokens + cost > LCM_EXPAND_MAX_TOKENS) break;
    out.push(text);
    tokens += cost;
    last = message.seq;
  }
  const spanEnd = request.id !== undefined ? end : (messages.at(-1)?.seq ?? last);
  const more =
    last < spanEnd
      ? `\n[cut at ${LCM_EXPAND_MAX_TOKENS} tokens: messages #${from + 1}–#${last} of ${label} shown; ` +
        `lcm_expand again with from=${last + 1} for the rest]`
      : '';
  return `${label}, messages #${from + 1}–#${last}:\n${out.join('\n')}${more}`;
}

function summaryOrThrow(store: SummaryStore, id: number, onlyConversation?: string): SummaryNode {
  const node = store.get(id);
  if (!node || (onlyConversation !== undefined && node.conversationId !== onlyConversation)) {
    throw new OpenLegionError(
      'LCM_SUMMARY_NOT_FOUND',
      `no readable summary S${id}; lcm_grep finds summaries and messages`,
      {
        details: { summary: id },
      },
    );
  }
  return node;
}

function lineText(line: StoredLine): string {
  const calls = line.toolCalls ? ` [tool calls: ${line.toolCalls}]` : '';
  return `${contentText(line.content)}${calls}`;
}

/** Up to {@link SNIPPET_CHARS} of `text` around the first place `term` occurs, on one line. */
function snippet(text: string, term: string): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  const at = term ? flat.toLowerCase().indexOf(term.toLowerCase()) : -1;
  const start = Math.max(0, at - Math.floor(SNIPPET_CHARS / 3));
  const piece = flat.slice(start, start + SNIPPET_CHARS);
  return `${start > 0 ? '…' : ''}${piece}${start + SNIPPET_CHARS < flat.length ? '…' : ''}`;
}

function clip(text: string, maxChars: number): string {
  return text.length <= maxChars
    ? text
    : `${text.slice(0, maxChars)}[… ${text.length - maxChars} characters cut]`;
}

function capLines(head: string, lines: readonly string[], maxTokens: number, hint: string): string {
  const out = [head];
  let tokens = estimateTokens(head);
  let shown = 0;
  for (const line of lines) {
    const cost = estimateTokens(line) + 1;
    if (tokens + cost > maxTokens) break;
    out.push(line);
    tokens += cost;
    shown++;
  }
  if (shown < lines.length)
    out.push(`[cut at ${maxTokens} tokens: ${lines.length - shown} more lines; ${hint}]`);
  return out.join('\n');
}
