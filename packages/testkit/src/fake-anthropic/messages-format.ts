import type { CompletionPlan } from '../fake-llm/completion-plan.js';

/** Tool input JSON is streamed in fragments of this many characters, as Anthropic does. */
const INPUT_FRAGMENT_CHARS = 16;

/** A scripted answer after the request's `max_tokens` and `stop_sequences` were applied. */
export interface MessagesAnswer {
  id: string;
  model: string;
  textChunks: string[];
  toolCalls: CompletionPlan['toolCalls'];
  stopReason: 'end_turn' | 'max_tokens' | 'stop_sequence' | 'tool_use';
  stopSequence: string | null;
  usage: {
    input_tokens: number;
    output_tokens: number;
    cache_creation_input_tokens: number;
    cache_read_input_tokens: number;
  };
}

/**
 * Shape a plan as Anthropic would answer: the text cut at the first stop sequence
 * (`stop_sequence`), or at `max_tokens` (4 characters a token, `max_tokens`, tool calls dropped);
 * else `tool_use` when it calls tools, `end_turn` otherwise. Cached prompt tokens are reported as
 * `cache_read_input_tokens`, apart from `input_tokens` as Anthropic counts them.
 */
export function toMessagesAnswer(
  plan: CompletionPlan,
  request: { max_tokens: number; stop_sequences?: string[] | undefined },
): MessagesAnswer {
  let text = plan.contentChunks.join('');
  let chunks = plan.contentChunks;
  let toolCalls = plan.toolCalls;
  let outputTokens = plan.usage.completion_tokens;
  let stopReason: MessagesAnswer['stopReason'] = toolCalls.length > 0 ? 'tool_use' : 'end_turn';
  let stopSequence: string | null = null;
  const hit = (request.stop_sequences ?? [])
    .map((sequence) => ({ sequence, at: text.indexOf(sequence) }))
    .filter((found) => found.at !== -1)
    .sort((a, b) => a.at - b.at)[0];
  const cutAt = (length: number) => {
    text = text.slice(0, length);
    chunks = cut(chunks, length);
    toolCalls = [];
  };
  if (hit) {
    cutAt(hit.at);
    stopReason = 'stop_sequence';
    stopSequence = hit.sequence;
    outputTokens = Math.ceil(text.length / 4);
  }
  if (outputTokens > request.max_tokens) {
    cutAt(request.max_tokens * 4);
    stopReason = 'max_tokens';
    stopSequence = null;
    outputTokens = request.max_tokens;
  }
  const cached = plan.usage.prompt_tokens_details?.cached_tokens ?? 0;
  return {
    id: plan.id,
    model: plan.model,
    textChunks: chunks.filter((chunk) => chunk !== ''),
    toolCalls,
    stopReason,
    stopSequence,
    usage: {
      input_tokens: plan.usage.prompt_tokens - cached,
      output_tokens: outputTokens,
      cache_creation_input_tokens: 0,
      cache_read_input_tokens: cached,
    },
  };
}

function cut(chunks: string[], length: number): string[] {
  const kept: string[] = [];
  let left = length;
  for (const chunk of chunks) {
    if (left <= 0) break;
    kept.push(chunk.slice(0, left));
    left -= chunk.length;
  }
  return kept;
}

/** The non-stream Messages API answer. */
export function toMessage(answer: MessagesAnswer): Record<string, unknown> {
  const text = answer.textChunks.join('');
  return {
    id: answer.id,
    type: 'message',
    role: 'assistant',
    model: answer.model,
    content: [
      ...(text ? [{ type: 'text', text }] : []),
      ...answer.toolCalls.map((call) => ({
        type: 'tool_use',
        id: call.id,
        name: call.name,
        input: JSON.parse(call.arguments) as unknown,
      })),
    ],
    stop_reason: answer.stopReason,
    stop_sequence: answer.stopSequence,
    usage: answer.usage,
  };
}

/** One stream event; `text` events count toward `disconnect_after_chunks`. */
export interface MessagesStreamEvent {
  event: string;
  data: Record<string, unknown>;
  text?: boolean;
}

/** The documented event sequence of a streamed answer, ping included. */
export function toStreamEvents(answer: MessagesAnswer): MessagesStreamEvent[] {
  const { usage } = answer;
  const events: MessagesStreamEvent[] = [
    {
      event: 'message_start',
      data: {
        type: 'message_start',
        message: {
          ...toMessage({ ...answer, textChunks: [], toolCalls: [] }),
          content: [],
          stop_reason: null,
          stop_sequence: null,
          usage: { ...usage, output_tokens: 1 },
        },
      },
    },
    { event: 'ping', data: { type: 'ping' } },
  ];
  let index = 0;
  if (answer.textChunks.length > 0) {
    events.push(blockStart(index, { type: 'text', text: '' }));
    for (const text of answer.textChunks)
      events.push({ ...blockDelta(index, { type: 'text_delta', text }), text: true });
    events.push(blockStop(index++));
  }
  for (const call of answer.toolCalls) {
    events.push(blockStart(index, { type: 'tool_use', id: call.id, name: call.name, input: {} }));
    for (let at = 0; at < call.arguments.length; at += INPUT_FRAGMENT_CHARS)
      events.push(
        blockDelta(index, {
          type: 'input_json_delta',
          partial_json: call.arguments.slice(at, at + INPUT_FRAGMENT_CHARS),
        }),
      );
    events.push(blockStop(index++));
  }
  events.push({
    event: 'message_delta',
    data: {
      type: 'message_delta',
      delta: { stop_reason: answer.stopReason, stop_sequence: answer.stopSequence },
      usage: { output_tokens: usage.output_tokens },
    },
  });
  events.push({ event: 'message_stop', data: { type: 'message_stop' } });
  return events;
}

const blockStart = (index: number, block: Record<string, unknown>): MessagesStreamEvent => ({
  event: 'content_block_start',
  data: { type: 'content_block_start', index, content_block: block },
});
const blockDelta = (index: number, delta: Record<string, unknown>): MessagesStreamEvent => ({
  event: 'content_block_delta',
  data: { type: 'content_block_delta', index, delta },
});
const blockStop = (index: number): MessagesStreamEvent => ({
  event: 'content_block_stop',
  data: { type: 'content_block_stop', index },
});
