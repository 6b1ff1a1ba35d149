import { z } from 'zod';
import type { ChatCompletionRequest, ChatMessage } from '../fake-llm/openai-request.js';

const textBlock = z.strictObject({
  type: z.literal('text'),
  text: z.string().min(1, 'text content blocks must be non-empty'),
  cache_control: z.looseObject({ type: z.literal('ephemeral') }).optional(),
});
const imageBlock = z.looseObject({
  type: z.literal('image'),
  source: z.discriminatedUnion('type', [
    z.strictObject({
      type: z.literal('base64'),
      media_type: z.enum(['image/jpeg', 'image/png', 'image/gif', 'image/webp']),
      data: z.string().min(1),
    }),
    z.strictObject({ type: z.literal('url'), url: z.url() }),
  ]),
});
const toolUseBlock = z.looseObject({
  type: z.literal('tool_use'),
  id: z.string().min(1),
  name: z.string().min(1),
  input: z.record(z.string(), z.unknown()),
});
const toolResultBlock = z.looseObject({
  type: z.literal('tool_result'),
  tool_use_id: z.string().min(1),
  content: z.union([z.string(), z.array(z.union([textBlock, imageBlock]))]).optional(),
  is_error: z.boolean().optional(),
});
const block = z.discriminatedUnion('type', [textBlock, imageBlock, toolUseBlock, toolResultBlock]);

const messageSchema = z.strictObject({
  role: z.enum(['user', 'assistant']),
  content: z.union([z.string(), z.array(block).min(1)]),
});

/** A Messages API request (`POST /v1/messages`), checked as strictly as Anthropic documents it. */
export const messagesRequestSchema = z.looseObject({
  model: z.string().min(1),
  max_tokens: z.number().int().positive(),
  messages: z.array(messageSchema).min(1),
  system: z.union([z.string(), z.array(textBlock)]).optional(),
  stream: z.boolean().optional(),
  stop_sequences: z.array(z.string()).optional(),
  temperature: z.number().min(0).max(1).optional(),
  tools: z
    .array(
      z.looseObject({
        name: z.string().regex(/^[a-zA-Z0-9_-]{1,64}$/),
        description: z.string().optional(),
        input_schema: z.looseObject({ type: z.literal('object') }),
      }),
    )
    .optional(),
  tool_choice: z
    .looseObject({ type: z.enum(['auto', 'any', 'tool', 'none']), name: z.string().optional() })
    .optional(),
});
export type MessagesRequest = z.output<typeof messagesRequestSchema>;
type MessagesBlock = z.output<typeof block>;

const blocksOf = (content: string | MessagesBlock[]): MessagesBlock[] =>
  typeof content === 'string' ? [{ type: 'text', text: content }] : content;

/**
 * What the Messages API refuses beyond the field shapes: each `tool_use` must be answered by a
 * `tool_result` in the very next (user) message, and each `tool_result` must answer a `tool_use` of
 * the message before it. Returns the problem, or undefined.
 */
export function toolPairingProblem(request: MessagesRequest): string | undefined {
  for (const [index, message] of request.messages.entries()) {
    const blocks = blocksOf(message.content);
    const previous = request.messages[index - 1];
    const called = new Set(
      previous && previous.role === 'assistant'
        ? blocksOf(previous.content).flatMap((b) => (b.type === 'tool_use' ? [b.id] : []))
        : [],
    );
    for (const result of blocks) {
      if (result.type === 'tool_result' && !called.has(result.tool_use_id))
        return `messages.${index}.content: unexpected \`tool_use_id\` found in \`tool_result\` blocks: ${result.tool_use_id}. Each \`tool_result\` block must have a corresponding \`tool_use\` block in the previous message.`;
    }
    if (message.role !== 'assistant') continue;
    const next = request.messages[index + 1];
    const answered = new Set(
      next ? blocksOf(next.content).flatMap((b) => (b.type === 'tool_result' ? [b.tool_use_id] : [])) : [],
    );
    for (const call of blocks) {
      if (call.type === 'tool_use' && next && !answered.has(call.id))
        return `messages.${index}: \`tool_use\` ids were found without \`tool_result\` blocks immediately after: ${call.id}`;
    }
  }
  return undefined;
}

/**
 * The request as the OpenAI-shaped view the fake LLM's rules and plans read: system text as a
 * system message, tool results as `tool` messages, text blocks as the message's content.
 */
export function toChatView(request: MessagesRequest): ChatCompletionRequest {
  const messages: ChatMessage[] = [];
  const system =
    typeof request.system === 'string' ? request.system : request.system?.map((b) => b.text).join('\n');
  if (system) messages.push({ role: 'system', content: system });
  for (const message of request.messages) {
    const blocks = blocksOf(message.content);
    for (const result of blocks) {
      if (result.type !== 'tool_result') continue;
      const content =
        typeof result.content === 'string'
          ? result.content
          : (result.content ?? []).map((b) => (b.type === 'text' ? b.text : '')).join('');
      messages.push({ role: 'tool', tool_call_id: result.tool_use_id, content });
    }
    const text = blocks.map((b) => (b.type === 'text' ? b.text : '')).join('');
    if (text || !blocks.some((b) => b.type === 'tool_result'))
      messages.push({ role: message.role, content: text });
  }
  return { model: request.model, messages, stream: request.stream ?? null };
}
