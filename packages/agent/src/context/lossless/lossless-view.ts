import type { LlmMessage } from '../context-manager.js';
import type { SplitConversation } from '../context-view.js';
import { repairToolPairs } from '../message-groups.js';
import type { SummaryNode } from './summary-store.js';

/**
 * What is sent under the `lossless` strategy: one system message (the system prompt, the active
 * summaries oldest first, the wrap-up note when due), then the messages after `covered` with every
 * tool call paired. `hidden` oldest summaries are left out (only when even the summaries do not fit).
 */
export function buildLosslessView(
  conversation: SplitConversation,
  active: readonly SummaryNode[],
  covered: number,
  hidden: number,
  wrapUpNote?: string,
): LlmMessage[] {
  const sections = [summaryBlock(active, covered, hidden), wrapUpNote].filter((text): text is string =>
    Boolean(text),
  );
  const recent = repairToolPairs(conversation.body.slice(covered));
  if (sections.length === 0) return conversation.system ? [conversation.system, ...recent] : recent;
  const text = sections.join('\n\n');
  const system = conversation.system;
  if (!system) return [{ role: 'system', content: text }, ...recent];
  if (system.role !== 'system' && system.role !== 'developer') return [system, ...recent];
  const merged: LlmMessage =
    typeof system.content === 'string'
      ? { ...system, content: `${system.content}\n\n${text}` }
      : { ...system, content: [...system.content, { type: 'text', text }] };
  return [merged, ...recent];
}

/** The summaries section; empty until something is summarised. */
export function summaryBlock(active: readonly SummaryNode[], covered: number, hidden: number): string {
  if (covered === 0) return '';
  const shown = active.slice(hidden);
  const parts = [
    '## Conversation summaries',
    `Messages 1–${covered} of this conversation are summarised below; the originals are all kept. ` +
      'lcm_grep searches them, lcm_describe shows a summary’s span and parts, lcm_expand gives its messages back.',
  ];
  if (hidden > 0) {
    parts.push(`(${hidden} older summaries are not shown for room; lcm_grep still finds what they hold.)`);
  }
  for (const node of shown) {
    parts.push(
      `[S${node.id} · depth ${node.depth} · messages ${node.start + 1}–${node.end}]\n${node.content}`,
    );
  }
  return parts.join('\n\n');
}
