import type { ServerResponse } from 'node:http';
import { respondWithCompletion, respondWithFailure } from './chat-completion-responder.js';
import { planCompletion } from './completion-plan.js';
import { sendOpenAiError } from './openai-error.js';
import { chatCompletionRequestSchema, describeRequestError } from './openai-request.js';
import type { RecordedRequest } from './recorded-request.js';
import { selectRule } from './rule-matcher.js';
import type { FakeLlmReply, FakeLlmScript } from './script.js';

const ECHO_REPLY: FakeLlmReply = { text: 'echo: {{last_message}}' };

/** The mutable state a fake server keeps between requests. */
export interface ChatScriptState {
  script: FakeLlmScript;
  /** How often each rule has answered, by rule index. */
  ruleUses: number[];
  /** Source of unique completion and tool call ids. */
  nextSequence: () => number;
  now: () => number;
}

/** Handles `POST /v1/chat/completions`: picks the scripted rule, then replies or fails as it says. */
export async function handleChatCompletions(
  res: ServerResponse,
  record: RecordedRequest,
  state: ChatScriptState,
  signal: AbortSignal,
): Promise<void> {
  const parsed = chatCompletionRequestSchema.safeParse(record.body);
  if (!parsed.success) {
    sendOpenAiError(res, 400, { message: describeRequestError(parsed.error), code: 'invalid_request_body' });
    return;
  }
  const request = parsed.data;
  const ruleIndex = selectRule(state.script.rules, state.ruleUses, request);
  const rule = ruleIndex === undefined ? undefined : state.script.rules[ruleIndex];
  if (ruleIndex !== undefined) {
    record.ruleIndex = ruleIndex;
    state.ruleUses[ruleIndex] = (state.ruleUses[ruleIndex] ?? 0) + 1;
  }
  const fail = rule?.fail;
  if (fail !== undefined && fail.disconnect_after_chunks === undefined) {
    await respondWithFailure(res, fail, signal);
    return;
  }

  const sequence = state.nextSequence();
  const reply = rule?.reply ?? state.script.default ?? ECHO_REPLY;
  const plan = planCompletion(reply, request, {
    completionId: `chatcmpl-fake-${sequence}`,
    createdMs: state.now(),
    toolCallId: (index) => `call_fake_${sequence}_${index}`,
  });
  if (fail?.delay_ms !== undefined) plan.delayMs = fail.delay_ms;
  await respondWithCompletion(res, plan, {
    stream: request.stream === true,
    includeUsage: request.stream_options?.include_usage === true,
    signal,
    ...(fail?.disconnect_after_chunks !== undefined
      ? { disconnectAfterChunks: fail.disconnect_after_chunks }
      : {}),
  });
}
