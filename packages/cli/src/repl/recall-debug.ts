import type { ChatEvent } from '@openlegion/protocol';

/** What automatic recall put into a turn's prompt, as the agent reported it. */
export type RecallReport = Extract<ChatEvent, { type: 'recall' }>;

/**
 * `/debug`: what was recalled into the last turn's prompt, each memory with its provenance, and
 * what it cost (characters, estimated tokens, milliseconds added to the turn).
 */
export function formatRecallDebug(agent: string, report: RecallReport | undefined): string {
  if (report === undefined) {
    return `${agent}: no recall for the last turn (none yet, or memory.recall_chars is 0)\n`;
  }
  const lines = [
    `${agent}: recall for the last turn: ${report.memories.length} memor${report.memories.length === 1 ? 'y' : 'ies'}, ` +
      `${report.chars}/${report.budget_chars} chars (~${report.tokens} tokens), ${report.ms} ms` +
      (report.held > 0 ? `, ${report.held} left out (already in the prompt)` : ''),
  ];
  if (report.error) lines.push(`  memory store failed, the turn went on without recall: ${report.error}`);
  for (const memory of report.memories) {
    const marks = [memory.untrusted ? 'untrusted' : '', memory.clipped ? 'clipped' : ''].filter(Boolean);
    lines.push(
      `  #${memory.id} ${memory.category} · ${memory.scope} · saved ${memory.saved_at.slice(0, 16).replace('T', ' ')}` +
        ` · ${memory.source} · ${memory.chars} chars${marks.length > 0 ? ` [${marks.join(', ')}]` : ''}`,
    );
  }
  return `${lines.join('\n')}\n`;
}
