import type { ChatCompletionRequest } from './openai-request.js';
import { messageText } from './openai-request.js';
import type { FakeLlmReply } from './script.js';

/** Rough token estimate the fake uses everywhere: a token per four characters. */
export function estimateTokens(text: string): number {
  return Math.ceil(text.length / 4);
}

/** Splits text into word-sized pieces that join back to the text (whitespace stays with the word before). */
export function splitIntoWords(text: string): string[] {
  return text.split(/(?<=\s)(?=\S)/).filter((piece) => piece !== '');
}

/** Replaces `{{last_message}}` and `{{model}}` in a reply text. */
export function renderTemplate(template: string, request: ChatCompletionRequest): string {
  const lastMessage = request.messages.at(-1);
  const values: Record<string, string> = {
    last_message: lastMessage ? messageText(lastMessage) : '',
    model: request.model,
  };
  return template.replace(/\{\{\s*(\w+)\s*\}\}/g, (placeholder, name: string) => values[name] ?? placeholder);
}

export interface PlannedToolCall {
  id: string;
  name: string;
  /** JSON text, as OpenAI sends it. */
  arguments: string;
}

export interface TokenUsage {
  prompt_tokens: number;
  completion_tokens: number;
  total_tokens: number;
  prompt_tokens_details?: { cached_tokens: number };
}

/** Everything needed to answer one chat completion, in stream or non-stream form. */
export interface CompletionPlan {
  id: string;
  /** Unix seconds. */
  created: number;
  model: string;
  /** Content pieces as streamed; null content (tool calls only) when `hasText` is false. */
  contentChunks: string[];
  hasText: boolean;
  toolCalls: PlannedToolCall[];
  finishReason: 'stop' | 'tool_calls';
  usage: TokenUsage;
  delayMs: number;
  chunkDelayMs: number;
}

export interface PlanIds {
  completionId: string;
  createdMs: number;
  /** Generates a tool call id for the tool call at `index` when the script gives none. */
  toolCallId: (index: number) => string;
}

function promptText(request: ChatCompletionRequest): string {
  return request.messages.map(messageText).join('');
}

/** Resolves a scripted reply against the request: templating, chunking, tool call ids, usage. */
export function planCompletion(
  reply: FakeLlmReply,
  request: ChatCompletionRequest,
  ids: PlanIds,
): CompletionPlan {
  const hasText = reply.text !== undefined || reply.chunks !== undefined;
  const contentChunks = reply.chunks
    ? reply.chunks.map((chunk) => renderTemplate(chunk, request))
    : splitIntoWords(renderTemplate(reply.text ?? '', request));
  const toolCalls = (reply.tool_calls ?? []).map((call, index) => ({
    id: call.id ?? ids.toolCallId(index),
    name: call.name,
    arguments: typeof call.arguments === 'string' ? call.arguments : JSON.stringify(call.arguments),
  }));
  const completionText =
    contentChunks.join('') + toolCalls.map((call) => call.name + call.arguments).join('');
  const promptTokens = reply.usage?.prompt_tokens ?? estimateTokens(promptText(request));
  const completionTokens = reply.usage?.completion_tokens ?? estimateTokens(completionText);
  return {
    id: ids.completionId,
    created: Math.floor(ids.createdMs / 1000),
    model: request.model,
    contentChunks,
    hasText,
    toolCalls,
    finishReason: toolCalls.length > 0 ? 'tool_calls' : 'stop',
    usage: {
      prompt_tokens: promptTokens,
      completion_tokens: completionTokens,
      total_tokens: promptTokens + completionTokens,
      ...(reply.usage?.cached_tokens !== undefined
        ? { prompt_tokens_details: { cached_tokens: reply.usage.cached_tokens } }
        : {}),
    },
    delayMs: reply.delay_ms ?? 0,
    chunkDelayMs: reply.chunk_delay_ms ?? 0,
  };
}
