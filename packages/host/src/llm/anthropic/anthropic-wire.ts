import { readSseFrames } from '@openlegion/infra/sse';
import { ProviderUnavailableError } from '../upstream-errors.js';
import { ANTHROPIC_VERSION, toAnthropicRequest } from './anthropic-request.js';
import { toChatCompletion } from './anthropic-response.js';
import { type AnthropicStreamEvent, AnthropicStreamTranslator } from './anthropic-stream.js';

/** When neither the request nor the price table gives the model's output limit. */
export const ANTHROPIC_DEFAULT_MAX_TOKENS = 8_192;

/** One model call as the Messages API takes it. */
export interface AnthropicCall {
  url: string;
  headers: Record<string, string>;
  body: string;
}

/** The `POST /v1/messages` call for an OpenAI chat-completion body (its transcript already repaired). */
export function anthropicCall(
  target: { baseUrl: string; upstreamModel: string; apiKey?: string },
  body: Record<string, unknown>,
  defaultMaxTokens: number,
): AnthropicCall {
  const headers: Record<string, string> = {
    'content-type': 'application/json',
    accept: body.stream === true ? 'text/event-stream' : 'application/json',
    'anthropic-version': ANTHROPIC_VERSION,
  };
  if (target.apiKey) headers['x-api-key'] = target.apiKey;
  return {
    url: `${target.baseUrl}/messages`,
    headers,
    body: JSON.stringify(toAnthropicRequest(body, { upstreamModel: target.upstreamModel, defaultMaxTokens })),
  };
}

export interface AnswerOptions {
  stream: boolean;
  includeUsage: boolean;
  /** The model name the OpenAI answer carries. */
  model: string;
  now: number;
}

/** An OK answer of the Messages API: a fetch Response, or undici's body (also async-iterable). */
export interface AnthropicAnswer {
  json(): Promise<unknown>;
  body: AsyncIterable<Uint8Array> | ReadableStream<Uint8Array> | null;
}

/**
 * An OK Messages API response as the OpenAI answer: a `chat.completion`, or an SSE stream of
 * `chat.completion.chunk`s. A stream is read up to its `message_start` before this resolves, so a
 * stream that opens with an error (overloaded) rejects with ProviderUnavailableError and fails over
 * like a 529 would; once it has started, an error event ends the translated stream with an error.
 */
export async function fromAnthropicResponse(
  response: AnthropicAnswer,
  options: AnswerOptions,
): Promise<Response> {
  if (!options.stream) {
    let message: unknown;
    try {
      message = await response.json();
    } catch (error) {
      throw new ProviderUnavailableError(`anthropic answered 200 with a body that is not JSON`, {
        cause: error,
      });
    }
    return new Response(JSON.stringify(toChatCompletion(message as object, options.model, options.now)), {
      status: 200,
      headers: { 'content-type': 'application/json' },
    });
  }
  const source = response.body;
  if (!source) throw new ProviderUnavailableError('anthropic answered a stream with no body');
  const frames = readSseFrames(source as AsyncIterable<Uint8Array>);
  const translator = new AnthropicStreamTranslator(options);
  let pending: string[] = [];
  let ended = false;
  const next = async (): Promise<boolean> => {
    const frame = await frames.next();
    if (frame.done) {
      if (!ended) throw new ProviderUnavailableError('anthropic ended the stream before message_stop');
      return false;
    }
    const event = parseEvent(frame.value.data);
    if (event.type === 'message_stop') ended = true;
    pending.push(...translator.translate(event));
    return true;
  };
  try {
    while (pending.length === 0) await next();
  } catch (error) {
    await frames.return(undefined);
    throw error;
  }
  const encoder = new TextEncoder();
  const body = new ReadableStream<Uint8Array>({
    async pull(controller) {
      while (pending.length === 0) {
        if (ended || !(await next())) {
          controller.close();
          return;
        }
      }
      controller.enqueue(encoder.encode(pending.map((data) => `data: ${data}\n\n`).join('')));
      pending = [];
    },
    async cancel() {
      await frames.return(undefined);
    },
  });
  return new Response(body, {
    status: 200,
    headers: { 'content-type': 'text/event-stream; charset=utf-8' },
  });
}

function parseEvent(data: string): AnthropicStreamEvent {
  try {
    const event: unknown = JSON.parse(data);
    if (typeof event === 'object' && event !== null) return event as AnthropicStreamEvent;
  } catch {}
  throw new ProviderUnavailableError(`anthropic sent a stream event that is not JSON: ${data.slice(0, 100)}`);
}
