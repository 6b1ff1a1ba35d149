import type { CompletionPlan } from './completion-plan.js';

/** Tool call arguments are streamed in fragments of this many characters, like real providers do. */
const ARGUMENT_FRAGMENT_CHARS = 16;

/** The non-stream `chat.completion` object OpenAI returns. */
export function toChatCompletion(plan: CompletionPlan): Record<string, unknown> {
  const message: Record<string, unknown> = {
    role: 'assistant',
    content: plan.hasText ? plan.contentChunks.join('') : null,
    refusal: null,
  };
  if (plan.toolCalls.length > 0) {
    message.tool_calls = plan.toolCalls.map((call) => ({
      id: call.id,
      type: 'function',
      function: { name: call.name, arguments: call.arguments },
    }));
  }
  return {
    id: plan.id,
    object: 'chat.completion',
    created: plan.created,
    model: plan.model,
    system_fingerprint: null,
    choices: [{ index: 0, message, logprobs: null, finish_reason: plan.finishReason }],
    usage: plan.usage,
  };
}

/** One `chat.completion.chunk`; `kind` lets the streamer cut a stream after N content chunks. */
export interface StreamChunk {
  kind: 'role' | 'content' | 'tool_call' | 'finish' | 'usage';
  data: Record<string, unknown>;
}

function fragments(text: string): string[] {
  const pieces: string[] = [];
  for (let start = 0; start < text.length; start += ARGUMENT_FRAGMENT_CHARS) {
    pieces.push(text.slice(start, start + ARGUMENT_FRAGMENT_CHARS));
  }
  return pieces;
}

/** The `chat.completion.chunk` sequence for a plan, without the closing `[DONE]`. */
export function toStreamChunks(plan: CompletionPlan, includeUsage: boolean): StreamChunk[] {
  const envelope = (choices: unknown[], usage?: unknown): Record<string, unknown> => ({
    id: plan.id,
    object: 'chat.completion.chunk',
    created: plan.created,
    model: plan.model,
    system_fingerprint: null,
    choices,
    ...(includeUsage ? { usage: usage ?? null } : {}),
  });
  const deltaChunk = (kind: StreamChunk['kind'], delta: Record<string, unknown>): StreamChunk => ({
    kind,
    data: envelope([{ index: 0, delta, logprobs: null, finish_reason: null }]),
  });

  const chunks: StreamChunk[] = [
    deltaChunk('role', { role: 'assistant', content: plan.hasText ? '' : null, refusal: null }),
  ];
  for (const content of plan.contentChunks) chunks.push(deltaChunk('content', { content }));
  plan.toolCalls.forEach((call, index) => {
    chunks.push(
      deltaChunk('tool_call', {
        tool_calls: [{ index, id: call.id, type: 'function', function: { name: call.name, arguments: '' } }],
      }),
    );
    for (const piece of fragments(call.arguments)) {
      chunks.push(deltaChunk('tool_call', { tool_calls: [{ index, function: { arguments: piece } }] }));
    }
  });
  chunks.push({
    kind: 'finish',
    data: envelope([{ index: 0, delta: {}, logprobs: null, finish_reason: plan.finishReason }]),
  });
  if (includeUsage) chunks.push({ kind: 'usage', data: envelope([], plan.usage) });
  return chunks;
}
