import type { ChatEvent } from '@openlegion/protocol';

const ARGUMENT_SUMMARY_CHARS = 60;
const RESULT_HINT_CHARS = 60;

/** `read_file(path: notes.md)`: a tool call in one short line. */
export function toolCallLine(name: string, input: unknown): string {
  return `${name}(${clip(summariseArguments(input), ARGUMENT_SUMMARY_CHARS)})`;
}

/** `→ 42 lines` / `✗ file not found`: what a tool returned, in a few words. */
export function toolResultHint(output: unknown, isError: boolean): string {
  const text = typeof output === 'string' ? output : JSON.stringify(output ?? '');
  if (isError) return `✗ ${clip(firstLine(text), RESULT_HINT_CHARS)}`;
  const lines = text.split('\n').length;
  return lines > 1 ? `→ ${lines} lines` : `→ ${clip(text, RESULT_HINT_CHARS)}`;
}

/** Where a reply is drawn, and how far it has got. */
export interface RenderState {
  atLineStart: boolean;
  /** Approvals whose wait was shown already (their `waiting` event repeats). */
  approvalsShown?: Set<string>;
}

/**
 * Write one event of a reply as a person reads it: text as it streams, a line per tool call and
 * one with its result hint, notices on stderr; `error` and `done` end the line.
 */
export function renderEvent(
  event: ChatEvent,
  write: { out: (text: string) => void; err: (text: string) => void },
  state: RenderState,
): void {
  const line = (text: string) => {
    if (!state.atLineStart) write.out('\n');
    write.out(`${text}\n`);
    state.atLineStart = true;
  };
  switch (event.type) {
    case 'text_delta':
      write.out(event.text);
      state.atLineStart = event.text.endsWith('\n');
      return;
    case 'tool_start':
      line(`  ⚙ ${toolCallLine(event.name, event.input)}`);
      return;
    case 'tool_result':
      line(`    ${toolResultHint(event.output, event.is_error)}`);
      return;
    case 'notice':
      write.err(`  · ${event.message}\n`);
      return;
    case 'approval':
      // `waiting` repeats while the call waits (it keeps the turn alive): shown once.
      if (event.state === 'waiting' && state.approvalsShown?.has(event.id)) return;
      state.approvalsShown = (state.approvalsShown ?? new Set()).add(event.id);
      line(
        event.state === 'waiting'
          ? `    ⏸ ${event.tool} waits for your approval: /approve ${event.id}  or  /reject ${event.id}`
          : `    ${event.state === 'approved' ? '✓ approved' : event.state === 'rejected' ? '✗ rejected' : '✗ nobody approved it in time'}`,
      );
      return;
    case 'error':
    case 'done':
      if (!state.atLineStart) write.out('\n');
      state.atLineStart = true;
      return;
    default:
      return;
  }
}

function summariseArguments(input: unknown): string {
  if (input === null || typeof input !== 'object') return input === undefined ? '' : String(input);
  return Object.entries(input)
    .map(([key, value]) => `${key}: ${typeof value === 'string' ? firstLine(value) : JSON.stringify(value)}`)
    .join(', ');
}

function firstLine(text: string): string {
  return text.split('\n')[0] ?? '';
}

function clip(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, max - 1)}…`;
}
