import { ProviderUnavailableError } from '../upstream-errors.js';
import { type AnthropicUsage, toFinishReason, toOpenAiUsage } from './anthropic-response.js';

/** One Messages API stream event, as parsed from its `data:` line. */
export interface AnthropicStreamEvent {
  type?: string;
  index?: number;
  message?: { id?: string; model?: string; usage?: AnthropicUsage };
  content_block?: { type?: string; id?: string; name?: string };
  delta?: { type?: string; text?: string; partial_json?: string; stop_reason?: string | null };
  usage?: AnthropicUsage;
  error?: { type?: string; message?: string };
}

/** The `data:` payloads an OpenAI stream ends with. */
export const DONE = '[DONE]';

/**
 * Turns the events of one Anthropic stream into OpenAI `chat.completion.chunk` payloads, in order:
 * message_start → the role chunk; text_delta → content; a tool_use block → a tool-call chunk with
 * its id and name, then its input_json_delta pieces as argument fragments; message_delta → the stop
 * reason and usage; message_stop → the finish chunk, the usage chunk when the client asked for it
 * (`stream_options.include_usage`), and `[DONE]`. An `error` event throws ProviderUnavailableError
 * (the proxy ends the client's stream with an SSE error event). ping and thinking are skipped.
 */
export class AnthropicStreamTranslator {
  readonly #model: string;
  readonly #created: number;
  readonly #includeUsage: boolean;
  #id = 'msg';
  #usage: AnthropicUsage = {};
  #stopReason: string | null = null;
  /** Anthropic block index → OpenAI tool-call index, for tool_use blocks. */
  readonly #toolIndex = new Map<number, number>();

  constructor(options: { model: string; now: number; includeUsage: boolean }) {
    this.#model = options.model;
    this.#created = Math.floor(options.now / 1000);
    this.#includeUsage = options.includeUsage;
  }

  /** The `data:` payloads (JSON text, or `[DONE]`) this event becomes. */
  translate(event: AnthropicStreamEvent): string[] {
    switch (event.type) {
      case 'message_start':
        this.#id = event.message?.id ?? this.#id;
        this.#usage = { ...event.message?.usage };
        return [this.#chunk({ role: 'assistant', content: '' })];
      case 'content_block_start':
        return this.#blockStart(event);
      case 'content_block_delta':
        return this.#blockDelta(event);
      case 'message_delta':
        this.#stopReason = event.delta?.stop_reason ?? this.#stopReason;
        // Its usage counts are cumulative: they replace what message_start said.
        for (const [key, value] of Object.entries(event.usage ?? {}))
          if (typeof value === 'number') this.#usage[key as keyof AnthropicUsage] = value;
        return [];
      case 'message_stop':
        return this.#finish();
      case 'error':
        throw new ProviderUnavailableError(
          `anthropic stream error (${event.error?.type ?? 'unknown'}): ${event.error?.message ?? 'no message'}`,
          { details: { provider_error: event.error?.type ?? null } },
        );
      default:
        // ping, content_block_stop, and event types added later
        return [];
    }
  }

  #blockStart(event: AnthropicStreamEvent): string[] {
    const block = event.content_block;
    if (block?.type !== 'tool_use') return [];
    const index = this.#toolIndex.size;
    this.#toolIndex.set(event.index ?? index, index);
    return [
      this.#chunk({
        tool_calls: [
          {
            index,
            id: block.id ?? '',
            type: 'function',
            function: { name: block.name ?? '', arguments: '' },
          },
        ],
      }),
    ];
  }

  #blockDelta(event: AnthropicStreamEvent): string[] {
    const delta = event.delta;
    if (delta?.type === 'text_delta' && delta.text) return [this.#chunk({ content: delta.text })];
    if (delta?.type === 'input_json_delta' && delta.partial_json) {
      const index = this.#toolIndex.get(event.index ?? -1);
      if (index === undefined) return [];
      return [this.#chunk({ tool_calls: [{ index, function: { arguments: delta.partial_json } }] })];
    }
    return [];
  }

  #finish(): string[] {
    const payloads = [
      this.#envelope([
        { index: 0, delta: {}, logprobs: null, finish_reason: toFinishReason(this.#stopReason) },
      ]),
    ];
    if (this.#includeUsage) payloads.push(this.#envelope([], toOpenAiUsage(this.#usage)));
    payloads.push(DONE);
    return payloads;
  }

  #chunk(delta: Record<string, unknown>): string {
    return this.#envelope([{ index: 0, delta, logprobs: null, finish_reason: null }]);
  }

  #envelope(choices: unknown[], usage?: Record<string, unknown>): string {
    return JSON.stringify({
      id: this.#id,
      object: 'chat.completion.chunk',
      created: this.#created,
      model: this.#model,
      choices,
      ...(this.#includeUsage ? { usage: usage ?? null } : {}),
    });
  }
}
