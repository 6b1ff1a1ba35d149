import type { ChatEvent } from '@openlegion/protocol';
import { errorLine, noticeLine, toolFailedLine, toolLine, usageLine } from './reply-lines.js';

type Segment = { kind: 'text'; text: string } | { kind: 'line'; text: string };

/**
 * What a reply shows, built from the agent's chat events: its text as it streams, a short line per
 * tool call, notices and errors, and (with `/debug`) the tokens used. Rendered as Markdown.
 */
export class ReplyContent {
  readonly #segments: Segment[] = [];
  readonly #toolNames = new Map<string, string>();
  readonly #approvalsShown = new Set<string>();
  #sawText = false;
  #usage: { model: string; prompt: number; completion: number } | undefined;

  constructor(
    private readonly header: string | undefined,
    private readonly showUsage: boolean,
  ) {}

  /** Take one event in; true when it changed what the reply shows. */
  apply(event: ChatEvent): boolean {
    switch (event.type) {
      case 'text_delta': {
        if (event.text === '') return false;
        this.#sawText = true;
        const last = this.#segments.at(-1);
        if (last?.kind === 'text') last.text += event.text;
        else this.#segments.push({ kind: 'text', text: event.text });
        return true;
      }
      case 'tool_start':
        this.#toolNames.set(event.id, event.name);
        return this.#line(toolLine(event.name, event.input));
      case 'tool_result':
        return event.is_error ? this.#line(toolFailedLine(this.#toolNames.get(event.id) ?? 'tool')) : false;
      case 'notice':
        return this.#line(noticeLine(event.message));
      case 'error':
        return this.#line(errorLine(event.message));
      case 'recall':
        return false;
      case 'approval':
        // The owner is offered the approval itself (buttons) as an operator notice; the reply
        // only says the call waits, once, and how it ended.
        if (event.state === 'waiting' && this.#approvalsShown.has(event.id)) return false;
        this.#approvalsShown.add(event.id);
        return this.#line(
          noticeLine(
            event.state === 'waiting' ? `${event.tool} waits for approval` : `${event.tool}: ${event.state}`,
          ),
        );
      case 'usage': {
        const previous = this.#usage;
        this.#usage = {
          model: event.model,
          prompt: (previous?.prompt ?? 0) + event.prompt_tokens,
          completion: (previous?.completion ?? 0) + event.completion_tokens,
        };
        return false;
      }
      case 'done':
        // The final text in full, when it was not streamed as deltas.
        if (this.#sawText || event.text === '') return false;
        this.#sawText = true;
        this.#segments.push({ kind: 'text', text: event.text });
        return true;
    }
  }

  /** The reply as Markdown; `final` adds the usage line (debug) or says there was no reply. */
  markdown(final: boolean): string {
    const blocks: string[] = this.header ? [this.header] : [];
    for (const segment of this.#segments) {
      if (segment.kind === 'line') blocks.push(segment.text);
      else if (segment.text.trim() !== '') blocks.push(segment.text.trim());
    }
    if (final && this.#segments.length === 0) blocks.push('_\\(no reply\\)_');
    if (final && this.showUsage && this.#usage) {
      blocks.push(usageLine(this.#usage.model, this.#usage.prompt, this.#usage.completion));
    }
    return blocks.join('\n\n');
  }

  #line(text: string): boolean {
    this.#segments.push({ kind: 'line', text });
    return true;
  }
}
