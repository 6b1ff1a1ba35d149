import type { ServerResponse } from 'node:http';
import { setTimeout as sleep } from 'node:timers/promises';
import { encodeSseFrame } from '@openlegion/infra/sse';
import { toChatCompletion, toStreamChunks } from './chat-completion-format.js';
import type { CompletionPlan } from './completion-plan.js';
import { sendJson, sendOpenAiError } from './openai-error.js';
import type { FakeLlmFail } from './script.js';

const DEFAULT_FAIL_STATUS = 500;

export interface StreamOptions {
  stream: boolean;
  includeUsage: boolean;
  signal: AbortSignal;
  /** Cut the connection after this many content chunks (stream) or before answering (non-stream). */
  disconnectAfterChunks?: number;
}

function writeEvent(res: ServerResponse, payload: string): Promise<void> {
  return new Promise((resolve, reject) => {
    res.write(encodeSseFrame({ data: payload }), (error) => (error ? reject(error) : resolve()));
  });
}

async function streamCompletion(
  res: ServerResponse,
  plan: CompletionPlan,
  options: StreamOptions,
): Promise<void> {
  res.writeHead(200, {
    'content-type': 'text/event-stream; charset=utf-8',
    'cache-control': 'no-cache',
    connection: 'keep-alive',
  });
  let contentChunksSent = 0;
  let first = true;
  for (const chunk of toStreamChunks(plan, options.includeUsage)) {
    if (options.disconnectAfterChunks !== undefined && chunk.kind !== 'role') {
      if (chunk.kind !== 'content' || contentChunksSent >= options.disconnectAfterChunks) {
        res.destroy();
        return;
      }
    }
    if (!first && plan.chunkDelayMs > 0)
      await sleep(plan.chunkDelayMs, undefined, { signal: options.signal });
    first = false;
    await writeEvent(res, JSON.stringify(chunk.data));
    if (chunk.kind === 'content') contentChunksSent++;
  }
  await writeEvent(res, '[DONE]');
  res.end();
}

/** Answers a chat completion from a plan, as a JSON body or an SSE stream. */
export async function respondWithCompletion(
  res: ServerResponse,
  plan: CompletionPlan,
  options: StreamOptions,
): Promise<void> {
  if (plan.delayMs > 0) await sleep(plan.delayMs, undefined, { signal: options.signal });
  if (options.stream) {
    await streamCompletion(res, plan, options);
    return;
  }
  if (options.disconnectAfterChunks !== undefined) {
    res.destroy();
    return;
  }
  sendJson(res, 200, toChatCompletion(plan));
}

/** Answers with the scripted HTTP failure (an OpenAI error body). */
export async function respondWithFailure(
  res: ServerResponse,
  fail: FakeLlmFail,
  signal: AbortSignal,
): Promise<void> {
  if (fail.delay_ms !== undefined && fail.delay_ms > 0) await sleep(fail.delay_ms, undefined, { signal });
  const status = fail.status ?? DEFAULT_FAIL_STATUS;
  if (fail.retry_after_s !== undefined) res.setHeader('retry-after', String(fail.retry_after_s));
  sendOpenAiError(res, status, {
    message: fail.message ?? `scripted failure (HTTP ${status})`,
    ...(fail.type !== undefined ? { type: fail.type } : {}),
    code: fail.code ?? null,
  });
}
