import { createHash } from 'node:crypto';
import type { ResolvedModel } from './model-resolver.js';

/** How strict a provider is about a transcript's shape. */
export type HygieneFamily = 'openai' | 'anthropic' | 'gemini' | 'mistral';

interface ToolCall {
  id?: string;
  type?: string;
  function?: { name?: string; arguments?: string };
}
interface Message {
  role?: string;
  content?: unknown;
  tool_calls?: ToolCall[];
  tool_call_id?: string;
  [key: string]: unknown;
}

/** The family of a resolved model: by kind, then by the provider's name or its base URL. */
export function hygieneFamily(target: Pick<ResolvedModel, 'kind' | 'provider' | 'baseUrl'>): HygieneFamily {
  if (target.kind === 'anthropic') return 'anthropic';
  const where = `${target.provider} ${target.baseUrl}`.toLowerCase();
  if (/gemini|generativelanguage\.googleapis/.test(where)) return 'gemini';
  if (/mistral/.test(where)) return 'mistral';
  return 'openai';
}

/** A tool-call id the provider accepts: letters and digits (gemini), exactly 9 of them (mistral). */
function providerId(id: string, family: HygieneFamily): string {
  if (family === 'mistral') {
    if (/^[A-Za-z0-9]{9}$/.test(id)) return id;
    return createHash('sha256')
      .update(id)
      .digest('base64')
      .replace(/[^A-Za-z0-9]/g, '')
      .slice(0, 9)
      .padEnd(9, '0');
  }
  if (family === 'gemini') return /^[A-Za-z0-9]+$/.test(id) ? id : id.replace(/[^A-Za-z0-9]/g, '') || 'call0';
  return id;
}

const joinContent = (a: unknown, b: unknown): unknown => {
  if (typeof a === 'string' && typeof b === 'string') return `${a}\n\n${b}`;
  const parts = (value: unknown) =>
    Array.isArray(value) ? value : [{ type: 'text', text: String(value ?? '') }];
  return [...parts(a), ...parts(b)];
};

/**
 * Repair a transcript in memory before it goes to a provider (what the agent stored is never
 * changed): tool calls with no name are dropped; a tool call with no result gets a synthetic error
 * result; a tool result whose call is not in the transcript is dropped; for providers that need
 * turns to alternate (anthropic, gemini) consecutive user or assistant messages are merged; tool-call
 * ids are made alphanumeric (gemini) or exactly 9 characters (mistral), the same way each time so a
 * call and its result keep matching. Returns the messages and a line per repair.
 */
export function cleanTranscript(
  input: readonly unknown[],
  family: HygieneFamily,
): { messages: unknown[]; repairs: string[] } {
  const repairs: string[] = [];
  const messages = input.map((message) => ({ ...(message as Message) }));
  const out: Message[] = [];
  const known = new Set<string>();
  for (let index = 0; index < messages.length; index++) {
    const message = messages[index] as Message;
    if (message.role === 'assistant' && Array.isArray(message.tool_calls)) {
      const named = message.tool_calls.filter((call) => call.function?.name);
      if (named.length < message.tool_calls.length)
        repairs.push(`dropped ${message.tool_calls.length - named.length} tool call(s) with no name`);
      message.tool_calls = named;
      if (named.length === 0) delete message.tool_calls;
      out.push(message);
      // Its results must follow it: those missing get a synthetic one.
      const answered = new Set<string>();
      let next = index + 1;
      while (next < messages.length && (messages[next] as Message).role === 'tool') {
        answered.add(String((messages[next] as Message).tool_call_id));
        next++;
      }
      for (const call of named) {
        if (call.id) known.add(call.id);
        if (call.id && !answered.has(call.id)) {
          repairs.push(`added a result for tool call ${call.id}, which had none`);
          messages.splice(next, 0, {
            role: 'tool',
            tool_call_id: call.id,
            content: 'error: this tool call has no result (the turn was interrupted)',
          });
          next++;
        }
      }
      continue;
    }
    if (message.role === 'tool' && (!message.tool_call_id || !known.has(message.tool_call_id))) {
      repairs.push(`dropped a tool result for unknown call ${message.tool_call_id ?? '(none)'}`);
      continue;
    }
    const previous = out.at(-1);
    if (
      (family === 'anthropic' || family === 'gemini') &&
      previous &&
      previous.role === message.role &&
      (message.role === 'user' ||
        (message.role === 'assistant' && !previous.tool_calls && !message.tool_calls))
    ) {
      previous.content = joinContent(previous.content, message.content);
      repairs.push(`merged two ${message.role} messages in a row`);
      continue;
    }
    out.push(message);
  }
  if (family === 'gemini' || family === 'mistral') {
    for (const message of out) {
      if (message.tool_calls)
        message.tool_calls = message.tool_calls.map((call) =>
          call.id ? { ...call, id: providerId(call.id, family) } : call,
        );
      if (message.tool_call_id) message.tool_call_id = providerId(message.tool_call_id, family);
    }
  }
  return { messages: out, repairs };
}
