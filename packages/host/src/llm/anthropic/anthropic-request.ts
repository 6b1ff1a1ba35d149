import { OpenLegionError } from '@openlegion/protocol';
import { type AnthropicBlock, toAnthropicContent } from './anthropic-content.js';

/** The version of the Messages API this adapter speaks (the `anthropic-version` header). */
export const ANTHROPIC_VERSION = '2023-06-01';

/** Marks a prompt-caching breakpoint: everything up to and including the block is cached. */
const CACHE_BREAKPOINT = { type: 'ephemeral' } as const;

interface OpenAiToolCall {
  id?: string;
  function?: { name?: string; arguments?: string };
}
interface OpenAiMessage {
  role?: string;
  content?: unknown;
  tool_calls?: OpenAiToolCall[];
  tool_call_id?: string;
}
interface OpenAiTool {
  type?: string;
  function?: { name?: string; description?: string; parameters?: unknown };
}
interface AnthropicMessage {
  role: 'user' | 'assistant';
  content: AnthropicBlock[];
}

/** What the adapter needs to know besides the request: the upstream name and the default answer length. */
export interface AnthropicRequestOptions {
  upstreamModel: string;
  /** `max_tokens` is required by Anthropic: used when the request gives none (the model's output limit). */
  defaultMaxTokens: number;
}

const invalid = (field: string, problem: string) =>
  new OpenLegionError('REQUEST_INVALID', `${field}: ${problem} (the anthropic provider cannot take it)`, {
    details: { field },
  });

/**
 * An OpenAI chat-completion body as an Anthropic Messages API body: system and developer messages
 * become the top-level `system` (a caching breakpoint on it), tool calls `tool_use` blocks, tool
 * results `tool_result` blocks in a user message (consecutive turns of one role merged, as
 * Anthropic needs them to alternate), tools get `input_schema` (a breakpoint on the last one), and
 * `max_tokens`, `stop`, `temperature`, `top_p`, `tool_choice`, `parallel_tool_calls` and `user`
 * are carried over. Throws REQUEST_INVALID naming a field Anthropic has no equivalent for.
 */
export function toAnthropicRequest(
  body: Record<string, unknown>,
  options: AnthropicRequestOptions,
): Record<string, unknown> {
  const system: Array<{ type: 'text'; text: string; cache_control?: typeof CACHE_BREAKPOINT }> = [];
  const messages: AnthropicMessage[] = [];
  const input = Array.isArray(body.messages) ? (body.messages as OpenAiMessage[]) : [];
  input.forEach((message, index) => {
    const field = `messages[${index}]`;
    if (message.role === 'system' || message.role === 'developer') {
      const text = toAnthropicContent(message.content, `${field}.content`)
        .map((block) => (block.type === 'text' ? block.text : ''))
        .join('\n');
      if (text) system.push({ type: 'text', text });
      return;
    }
    if (message.role === 'tool') {
      const result = toAnthropicContent(message.content, `${field}.content`);
      append(messages, 'user', [
        {
          type: 'tool_result',
          tool_use_id: String(message.tool_call_id ?? ''),
          content: result.length > 0 ? result : [{ type: 'text', text: '(no output)' }],
        },
      ]);
      return;
    }
    if (message.role === 'assistant') {
      const blocks: AnthropicBlock[] = toAnthropicContent(message.content, `${field}.content`);
      for (const call of message.tool_calls ?? []) {
        blocks.push({
          type: 'tool_use',
          id: String(call.id ?? ''),
          name: String(call.function?.name ?? ''),
          input: toolInput(call.function?.arguments),
        });
      }
      append(messages, 'assistant', blocks);
      return;
    }
    if (message.role === 'user') {
      append(messages, 'user', toAnthropicContent(message.content, `${field}.content`));
      return;
    }
    throw invalid(`${field}.role`, `unknown role "${String(message.role)}"`);
  });

  const request: Record<string, unknown> = {
    model: options.upstreamModel,
    messages,
    max_tokens: maxTokens(body, options.defaultMaxTokens),
  };
  const lastSystem = system.at(-1);
  if (lastSystem) {
    lastSystem.cache_control = CACHE_BREAKPOINT;
    request.system = system;
  }
  const tools = toAnthropicTools(body.tools);
  if (tools) request.tools = tools;
  const toolChoice = toAnthropicToolChoice(body.tool_choice, body.parallel_tool_calls);
  if (toolChoice) request.tool_choice = toolChoice;
  const stop = typeof body.stop === 'string' ? [body.stop] : body.stop;
  if (Array.isArray(stop) && stop.length > 0) request.stop_sequences = stop;
  // OpenAI's temperature goes to 2, Anthropic's to 1.
  if (typeof body.temperature === 'number') request.temperature = Math.min(1, body.temperature);
  if (typeof body.top_p === 'number') request.top_p = body.top_p;
  if (typeof body.user === 'string') request.metadata = { user_id: body.user };
  if (body.stream === true) request.stream = true;
  return request;
}

/** Add blocks as a turn of `role`, into the previous turn when it has the same role. */
function append(
  messages: AnthropicMessage[],
  role: AnthropicMessage['role'],
  blocks: AnthropicBlock[],
): void {
  // An empty turn is left out, so the turns either side of it merge and still alternate.
  if (blocks.length === 0) return;
  const previous = messages.at(-1);
  if (previous?.role === role) {
    // Tool results must open a user turn, ahead of any text that follows them.
    const results = blocks.filter((block) => block.type === 'tool_result');
    const others = blocks.filter((block) => block.type !== 'tool_result');
    const firstOther = previous.content.findIndex((block) => block.type !== 'tool_result');
    if (results.length > 0 && firstOther !== -1) previous.content.splice(firstOther, 0, ...results);
    else previous.content.push(...results);
    previous.content.push(...others);
    return;
  }
  messages.push({ role, content: blocks });
}

function maxTokens(body: Record<string, unknown>, fallback: number): number {
  const asked = body.max_completion_tokens ?? body.max_tokens;
  if (asked === undefined || asked === null) return fallback;
  if (typeof asked !== 'number' || !Number.isInteger(asked) || asked < 1)
    throw invalid('max_tokens', 'must be a positive integer');
  return asked;
}

/** Tool-call arguments are JSON text in OpenAI; Anthropic wants the object. */
function toolInput(text: string | undefined): Record<string, unknown> {
  if (!text) return {};
  try {
    const parsed: unknown = JSON.parse(text);
    if (typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed))
      return parsed as Record<string, unknown>;
  } catch {}
  // Not an object (a model wrote bad JSON): kept, so the transcript still says what was called.
  return { arguments: text };
}

function toAnthropicTools(tools: unknown): Array<Record<string, unknown>> | undefined {
  if (!Array.isArray(tools) || tools.length === 0) return undefined;
  const translated = (tools as OpenAiTool[]).map((tool, index) => {
    if (tool.type !== 'function' || !tool.function?.name)
      throw invalid(`tools[${index}]`, 'only function tools with a name are supported');
    return {
      name: tool.function.name,
      ...(tool.function.description ? { description: tool.function.description } : {}),
      input_schema: tool.function.parameters ?? { type: 'object', properties: {} },
    } as Record<string, unknown>;
  });
  const last = translated.at(-1);
  if (last) last.cache_control = CACHE_BREAKPOINT;
  return translated;
}

function toAnthropicToolChoice(choice: unknown, parallel: unknown): Record<string, unknown> | undefined {
  const noParallel = parallel === false ? { disable_parallel_tool_use: true } : {};
  if (choice === undefined || choice === null || choice === 'auto')
    return parallel === false ? { type: 'auto', ...noParallel } : undefined;
  if (choice === 'none') return { type: 'none' };
  if (choice === 'required') return { type: 'any', ...noParallel };
  const name = (choice as { function?: { name?: unknown } }).function?.name;
  if (typeof name === 'string') return { type: 'tool', name, ...noParallel };
  throw invalid(
    'tool_choice',
    'must be "auto", "none", "required" or { type: "function", function: { name } }',
  );
}
