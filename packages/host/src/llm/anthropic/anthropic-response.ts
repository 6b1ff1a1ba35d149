/** The usage object of a Messages API answer (cache fields only when prompt caching applied). */
export interface AnthropicUsage {
  input_tokens?: number | null;
  output_tokens?: number | null;
  cache_creation_input_tokens?: number | null;
  cache_read_input_tokens?: number | null;
}

interface AnthropicMessage {
  id?: string;
  model?: string;
  content?: Array<{ type?: string; text?: string; id?: string; name?: string; input?: unknown }>;
  stop_reason?: string | null;
  usage?: AnthropicUsage;
}

/** OpenAI's usage: prompt tokens count the cached and cache-written ones too, as OpenAI counts them. */
export function toOpenAiUsage(usage: AnthropicUsage): Record<string, unknown> {
  const cached = usage.cache_read_input_tokens ?? 0;
  const prompt = (usage.input_tokens ?? 0) + cached + (usage.cache_creation_input_tokens ?? 0);
  const completion = usage.output_tokens ?? 0;
  return {
    prompt_tokens: prompt,
    completion_tokens: completion,
    total_tokens: prompt + completion,
    prompt_tokens_details: { cached_tokens: cached },
  };
}

/** Anthropic's `stop_reason` as OpenAI's `finish_reason`. */
export function toFinishReason(stopReason: string | null | undefined): string {
  switch (stopReason) {
    case 'max_tokens':
      return 'length';
    case 'tool_use':
      return 'tool_calls';
    case 'refusal':
      return 'content_filter';
    default:
      // end_turn, stop_sequence, pause_turn
      return 'stop';
  }
}

/**
 * A Messages API answer as an OpenAI `chat.completion`: its text blocks joined into `content`
 * (null when there are none), `tool_use` blocks as `tool_calls` (input as JSON text), the stop
 * reason as `finish_reason` and the usage with cached tokens. Thinking blocks are left out.
 */
export function toChatCompletion(
  message: AnthropicMessage,
  model: string,
  now: number,
): Record<string, unknown> {
  const blocks = message.content ?? [];
  const texts = blocks.filter((block) => block.type === 'text').map((block) => block.text ?? '');
  const toolCalls = blocks
    .filter((block) => block.type === 'tool_use')
    .map((block) => ({
      id: block.id ?? '',
      type: 'function',
      function: { name: block.name ?? '', arguments: JSON.stringify(block.input ?? {}) },
    }));
  return {
    id: message.id ?? 'msg',
    object: 'chat.completion',
    created: Math.floor(now / 1000),
    model: message.model ?? model,
    choices: [
      {
        index: 0,
        message: {
          role: 'assistant',
          content: texts.length > 0 ? texts.join('') : null,
          refusal: null,
          ...(toolCalls.length > 0 ? { tool_calls: toolCalls } : {}),
        },
        logprobs: null,
        finish_reason: toFinishReason(message.stop_reason),
      },
    ],
    usage: toOpenAiUsage(message.usage ?? {}),
  };
}
