import { eventKey } from '../features/index.js';
import type { CallTrace } from '../server/index.js';

/** One call through the LLM proxy, as it ended: what telemetry makes a `gen_ai` span and metrics of. */
export interface LlmCallSettled {
  /** The calling agent, or `operator`. */
  agent: string;
  kind: 'chat' | 'embeddings';
  /** `provider/model` that answered (the one asked, when none did). */
  model: string;
  /** The configured provider's name (`openai`, `anthropic`, `local`). */
  provider: string;
  /** The model name sent to the provider. */
  upstreamModel: string;
  stream: boolean;
  /** The call's trace, when it came with an `x-trace-id`. */
  trace: CallTrace | undefined;
  /** Its W3C trace id: the trace's, else one of the call's own. */
  otelTraceId: string;
  /** This call's span: the parent named in the `traceparent` sent to the provider. */
  spanId: string;
  /** Wall-clock ms at the start; the end is the start plus the monotonic duration (sub-millisecond). */
  startedAt: number;
  endedAt: number;
  /** The error's code when the call failed before an answer. */
  errorCode: string | undefined;
  /** Tokens and cost, when the costs meter recorded them. */
  usage: { input: number; output: number; costUsd: number; estimated: boolean } | undefined;
  finishReasons: readonly string[];
  responseModel: string | undefined;
}

/** An LLM call ended (answered, failed, or cut off by its client). */
export const LLM_CALL_SETTLED = eventKey<LlmCallSettled>('llm.call-settled');
