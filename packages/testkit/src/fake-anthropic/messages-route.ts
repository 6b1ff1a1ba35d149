import type { ServerResponse } from 'node:http';
import { setTimeout as sleep } from 'node:timers/promises';
import { encodeSseFrame } from '@openlegion/infra/sse';
import type { ChatScriptState } from '../fake-llm/chat-completions-route.js';
import { planCompletion } from '../fake-llm/completion-plan.js';
import { sendJson } from '../fake-llm/openai-error.js';
import { describeRequestError } from '../fake-llm/openai-request.js';
import type { RecordedRequest } from '../fake-llm/recorded-request.js';
import { selectRule } from '../fake-llm/rule-matcher.js';
import type { FakeLlmFail, FakeLlmReply } from '../fake-llm/script.js';
import { sendAnthropicError } from './anthropic-error.js';
import { type MessagesAnswer, toMessage, toMessagesAnswer, toStreamEvents } from './messages-format.js';
import { messagesRequestSchema, toChatView, toolPairingProblem } from './messages-request.js';

const ECHO_REPLY: FakeLlmReply = { text: 'echo: {{last_message}}' };

/**
 * Handles `POST /v1/messages`: validates the request as Anthropic does, picks the scripted rule
 * (rules match on the request seen as OpenAI messages), then answers, streams or fails as it says.
 */
export async function handleMessages(
  res: ServerResponse,
  record: RecordedRequest,
  state: ChatScriptState,
  signal: AbortSignal,
): Promise<void> {
  const parsed = messagesRequestSchema.safeParse(record.body);
  if (!parsed.success) return sendAnthropicError(res, 400, describeRequestError(parsed.error));
  const request = parsed.data;
  const pairing = toolPairingProblem(request);
  if (pairing) return sendAnthropicError(res, 400, pairing);
  const view = toChatView(request);
  const ruleIndex = selectRule(state.script.rules, state.ruleUses, view);
  const rule = ruleIndex === undefined ? undefined : state.script.rules[ruleIndex];
  if (ruleIndex !== undefined) {
    record.ruleIndex = ruleIndex;
    state.ruleUses[ruleIndex] = (state.ruleUses[ruleIndex] ?? 0) + 1;
  }
  const fail = rule?.fail;
  if (fail?.delay_ms) await sleep(fail.delay_ms, undefined, { signal });
  if (fail !== undefined && fail.disconnect_after_chunks === undefined) return failWith(res, fail);

  const sequence = state.nextSequence();
  const plan = planCompletion(rule?.reply ?? state.script.default ?? ECHO_REPLY, view, {
    completionId: `msg_fake_${sequence}`,
    createdMs: state.now(),
    toolCallId: (index) => `toolu_fake_${sequence}_${index}`,
  });
  if (plan.delayMs > 0) await sleep(plan.delayMs, undefined, { signal });
  const answer = toMessagesAnswer(plan, request);
  if (request.stream !== true) {
    if (fail) return void res.destroy();
    return sendJson(res, 200, toMessage(answer));
  }
  await streamAnswer(res, answer, {
    chunkDelayMs: plan.chunkDelayMs,
    signal,
    ...(fail ? { breakOff: fail } : {}),
  });
}

function failWith(res: ServerResponse, fail: FakeLlmFail): void {
  const status = fail.status ?? 500;
  if (fail.retry_after_s !== undefined) res.setHeader('retry-after', String(fail.retry_after_s));
  sendAnthropicError(res, status, fail.message ?? `scripted failure (HTTP ${status})`, fail.type);
}

/** Streams the answer; `breakOff` ends it with an `error` event after its N-th text delta, as Anthropic does. */
async function streamAnswer(
  res: ServerResponse,
  answer: MessagesAnswer,
  options: { chunkDelayMs: number; signal: AbortSignal; breakOff?: FakeLlmFail },
): Promise<void> {
  res.writeHead(200, { 'content-type': 'text/event-stream; charset=utf-8', 'cache-control': 'no-cache' });
  let textSent = 0;
  for (const event of toStreamEvents(answer)) {
    if (event.text) {
      if (options.breakOff && textSent >= (options.breakOff.disconnect_after_chunks ?? 0)) {
        const error = {
          type: options.breakOff.type ?? 'overloaded_error',
          message: options.breakOff.message ?? 'Overloaded',
        };
        await write(res, encodeSseFrame({ event: 'error', data: JSON.stringify({ type: 'error', error }) }));
        res.end();
        return;
      }
      if (textSent > 0 && options.chunkDelayMs > 0)
        await sleep(options.chunkDelayMs, undefined, { signal: options.signal });
      textSent++;
    }
    await write(res, encodeSseFrame({ event: event.event, data: JSON.stringify(event.data) }));
  }
  res.end();
}

function write(res: ServerResponse, text: string): Promise<void> {
  return new Promise((resolve, reject) => res.write(text, (error) => (error ? reject(error) : resolve())));
}
