import type { ChatEvent } from '@openlegion/protocol';
import type OpenAI from 'openai';
import type { LlmMessage } from '../context/context-manager.js';
import { traceHeaders } from '../subagents/subagent-context.js';

/** A tool as the model is told about it (OpenAI `tools` entry). */
export type LlmToolDefinition = OpenAI.Chat.Completions.ChatCompletionFunctionTool;

/** A tool call the model asked for, its arguments still JSON text. */
export interface RequestedToolCall {
  id: string;
  name: string;
  arguments: string;
}

/** One complete answer of the model. */
export interface LlmReply {
  text: string;
  toolCalls: RequestedToolCall[];
}

export interface LlmStreamRequest {
  llm: OpenAI;
  model: string;
  messages: LlmMessage[];
  tools: LlmToolDefinition[];
  idleTimeoutMs: number;
  traceId?: string | undefined;
}

/** Thrown for a failure after text reached the user: retrying would show it twice. */
export class StreamBrokenAfterTextError extends Error {}

/**
 * One streamed completion: emits `text_delta` and `usage`, gathers tool calls (streamed in
 * fragments), and returns the whole answer. A stream silent for `idleTimeoutMs`, cut before its
 * finish reason, or aborted throws: only a complete answer counts.
 */
export async function streamCompletion(
  request: LlmStreamRequest,
  emit: (event: ChatEvent) => void,
  signal: AbortSignal,
): Promise<LlmReply> {
  const { llm, model, messages, tools, idleTimeoutMs, traceId } = request;
  const idle = new AbortController();
  const stall = () => idle.abort(new Error(`the LLM stream sent nothing for ${idleTimeoutMs} ms`));
  let idleTimer = setTimeout(stall, idleTimeoutMs);
  let text = '';
  try {
    const stream = await llm.chat.completions.create(
      {
        model,
        messages,
        stream: true,
        stream_options: { include_usage: true },
        ...(tools.length > 0 ? { tools } : {}),
      },
      {
        signal: AbortSignal.any([signal, idle.signal]),
        ...(traceId ? { headers: traceHeaders(traceId) } : {}),
      },
    );
    const calls: RequestedToolCall[] = [];
    let finished = false;
    for await (const chunk of stream) {
      clearTimeout(idleTimer);
      idleTimer = setTimeout(stall, idleTimeoutMs);
      const choice = chunk.choices[0];
      if (choice?.delta.content) {
        text += choice.delta.content;
        emit({ type: 'text_delta', text: choice.delta.content });
      }
      for (const fragment of choice?.delta.tool_calls ?? []) {
        const call = calls[fragment.index] ?? { id: '', name: '', arguments: '' };
        calls[fragment.index] = call;
        if (fragment.id) call.id = fragment.id;
        if (fragment.function?.name) call.name += fragment.function.name;
        if (fragment.function?.arguments) call.arguments += fragment.function.arguments;
      }
      if (choice?.finish_reason) finished = true;
      if (chunk.usage) {
        emit({
          type: 'usage',
          model: chunk.model || model,
          prompt_tokens: chunk.usage.prompt_tokens,
          completion_tokens: chunk.usage.completion_tokens,
        });
      }
    }
    // The SDK ends the iteration quietly on abort; a cut upstream may end it without a finish reason.
    signal.throwIfAborted();
    idle.signal.throwIfAborted();
    if (!finished) throw new Error('the LLM stream ended before the answer was finished');
    return { text, toolCalls: calls.filter((call) => call !== undefined) };
  } catch (error) {
    if (text !== '' && !signal.aborted) {
      throw new StreamBrokenAfterTextError(error instanceof Error ? error.message : String(error), {
        cause: error,
      });
    }
    throw error;
  } finally {
    clearTimeout(idleTimer);
  }
}
