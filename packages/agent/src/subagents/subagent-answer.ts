import { fenceUntrusted } from '@openlegion/protocol';
import type { SubagentRecord, SubagentSpec } from './subagent-manager.js';

/** The longest answer kept of a subagent: it returns into its parent's prompt. */
export const SUBAGENT_RESULT_MAX_CHARS = 16_000;

/** A finished subagent's answer as its parent reads it: fenced, since it read what its task led it to. */
export function answerOf(record: SubagentRecord): string {
  const answer = fenceUntrusted(`subagent ${record.id}`, record.result ?? '');
  const captured = record.captured
    ? `; squad ${record.squad}: ${record.captured.lessons} lessons kept, ${record.captured.distilled} distilled${record.captured.error ? ` (capture failed: ${record.captured.error})` : ''}`
    : '';
  const restarts = record.restarts > 0 ? `, re-run ${record.restarts}× after agent restarts` : '';
  return `${record.id} ${record.state} (${record.tokens} tokens${restarts}${captured}), task ${JSON.stringify(record.task.slice(0, 80))}:\n${answer}`;
}

/** The message that brings an answer to the agent's own lane when no turn waited for it. */
export function deliveryMessage(record: SubagentRecord): string {
  return `Your subagent ${record.id} ended after the turn that spawned it had stopped waiting for it (subagent_result is not needed: this message is its answer, sent once).\n\n${answerOf(record)}`;
}

/** One line of `subagents_list`. */
export function describeRun(record: SubagentRecord): string {
  const task = record.task.length > 80 ? `${record.task.slice(0, 80)}…` : record.task;
  const delivered = record.deliveredAt !== undefined ? '  (answer delivered as a message)' : '';
  return `${record.id}  depth ${record.depth}  ${record.state}  ${record.tokens} tokens  ${JSON.stringify(task)}${delivered}`;
}

/** The result of a run stopped by its bounds or by `subagent_kill`. */
export function stoppedBecause(reason: 'timed_out' | 'over_budget' | 'killed', spec: SubagentSpec): string {
  if (reason === 'timed_out')
    return `stopped: it ran past its ${Math.round(spec.timeoutMs / 1000)} s timeout`;
  if (reason === 'over_budget') return `stopped: it spent more than its ${spec.maxTokens} tokens`;
  return 'stopped: killed';
}

/** Text cut to `max` characters (an answer: {@link SUBAGENT_RESULT_MAX_CHARS}), saying so. */
export function clip(text: string, max = SUBAGENT_RESULT_MAX_CHARS): string {
  return text.length > max ? `${text.slice(0, max)}… (cut at ${max} characters)` : text;
}
