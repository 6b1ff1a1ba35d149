import { type ChatEvent, fenceUntrusted } from '@openlegion/protocol';
import { clip } from './subagent-answer.js';

/** Steps kept of a run (the newest): enough to go on from, bounded whatever the child does. */
export const MAX_PROGRESS_STEPS = 20;
const INPUT_CHARS = 300;
const OUTPUT_CHARS = 600;

/** One tool call the child made and what it returned. */
export interface ProgressStep {
  tool: string;
  input: string;
  output: string;
  error: boolean;
}

/**
 * What a child did before the agent restarted under it: its finished tool calls and their results,
 * clipped, persisted as they happen. A turn is stored in the conversation only once it answers, so
 * without this a re-run would start from nothing and redo (and pay for) the same calls.
 */
export class ProgressJournal {
  readonly #started = new Map<string, { tool: string; input: string }>();
  #steps: ProgressStep[];

  constructor(steps: readonly ProgressStep[] = []) {
    this.#steps = [...steps];
  }

  get steps(): readonly ProgressStep[] {
    return this.#steps;
  }

  /** Take a chat event; true when a step finished (the journal changed and is worth saving). */
  record(event: ChatEvent): boolean {
    if (event.type === 'tool_start') {
      this.#started.set(event.id, {
        tool: event.name,
        input: clip(JSON.stringify(event.input ?? {}), INPUT_CHARS),
      });
      return false;
    }
    if (event.type !== 'tool_result') return false;
    const started = this.#started.get(event.id);
    if (!started) return false;
    this.#started.delete(event.id);
    const output = typeof event.output === 'string' ? event.output : JSON.stringify(event.output ?? '');
    this.#steps = [
      ...this.#steps,
      { ...started, output: clip(output, OUTPUT_CHARS), error: event.is_error },
    ].slice(-MAX_PROGRESS_STEPS);
    return true;
  }
}

/**
 * What a run started again is told first: that it is a re-run, and the calls it made before, as
 * data (their results came from tools and pages, so they are fenced like any tool output).
 */
export function resumeNote(restarts: number, steps: readonly ProgressStep[]): string {
  const head = `(This task was interrupted by an agent restart and is running again, attempt ${restarts + 1}. Your workspace folder may hold files from the earlier attempt: check them before redoing work.)`;
  if (steps.length === 0) return head;
  const lines = steps.map(
    (step, index) =>
      `${index + 1}. ${step.tool} ${step.input}\n   ${step.error ? 'failed' : 'returned'}: ${step.output.replace(/\n/g, '\n   ')}`,
  );
  return [
    head,
    `Before the restart you had made ${steps.length === 1 ? 'this tool call' : `these ${steps.length} tool calls`}${steps.length === MAX_PROGRESS_STEPS ? ' (the latest; earlier ones are not kept)' : ''}; go on from there rather than repeating ${steps.length === 1 ? 'it' : 'them'}, unless a result may have changed:`,
    fenceUntrusted('your tool calls before the restart', lines.join('\n')),
  ].join('\n');
}
