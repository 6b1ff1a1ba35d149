import type { MeshConfig } from '@openlegion/protocol';
import type { LlmAnswer } from '../server/index.js';
import type { BudgetGate } from './budget-gate.js';
import { costOf, DEFAULT_MAX_OUTPUT_TOKENS, priceOf } from './prices.js';
import type { UsageLog, UsageRecord } from './usage-log.js';
import { type TappedUsage, tapUsage } from './usage-tap.js';

/** One LLM call about to be forwarded. */
export interface ChargeRequest {
  agent: string;
  /** `provider/model` after tier resolution. */
  model: string;
  kind: 'chat' | 'embeddings';
  body: Record<string, unknown>;
  /**
   * The length of the request body as it arrived, when known: never shorter than its messages as
   * JSON (it holds them, escaped at least as long and with UTF-8 bytes for characters), so it
   * bounds the prompt without serialising a long transcript again.
   */
  bodyLength?: number | undefined;
  requestId: string;
  traceId: string | null;
}

/** The budget a call holds, and how its real cost gets recorded. */
export interface Charge {
  /** The call failed before an answer: give the reservation back, record nothing. */
  release(): void;
  /**
   * Read the answer's usage as it passes; record the real cost and release the reservation at its
   * end. `model`: the model that answered, when a fallback did. `onEnd` hears what was recorded,
   * with what the provider told of its answer (telemetry's LLM spans).
   */
  tap(
    answer: LlmAnswer,
    stream: boolean,
    model?: string,
    onEnd?: (record: UsageRecord, usage: TappedUsage) => void,
  ): LlmAnswer;
}

/** A call at a fixed price per request (a web search), not priced by tokens. */
export interface FlatChargeRequest {
  agent: string;
  /** What the costs report shows in its model column, e.g. `search/brave`. */
  model: string;
  usd: number;
  requestId: string;
  traceId: string | null;
}

/** The budget a fixed-price call holds until it ends. */
export interface FlatCharge {
  /** The call answered: record it at its price and release the reservation. */
  settle(): void;
  /** The call failed (nothing to pay): release the reservation, record nothing. */
  release(): void;
}

export interface CostMeterDeps {
  config: MeshConfig;
  log: UsageLog;
  gate: BudgetGate;
  /** Whose budget an agent's calls are billed to (itself unless a spawner pays for it). */
  ownerOf?: ((agent: string) => string) | undefined;
  now: () => number;
  warn: (message: string) => void;
  /** Told of each recorded call (a workflow step adds its cost). */
  onRecorded?: ((usage: UsageRecord) => void) | undefined;
}

/** The operator is not an agent: its calls are recorded, never refused. */
const OPERATOR = 'operator';

/**
 * Prices, reserves and records each LLM call: the most it could cost is reserved against the
 * agent's budgets before it is forwarded (prompt estimated at 3 characters of the request body
 * a token, an upper bound, plus `max_tokens` — or the model's output limit — at the model's price); the real cost
 * from the provider's usage is recorded when it ends.
 */
export class CostMeter {
  readonly #deps: CostMeterDeps;
  readonly #unpriced = new Set<string>();

  constructor(deps: CostMeterDeps) {
    this.#deps = deps;
  }

  /**
   * Reserve a fixed-price call (`BUDGET_EXCEEDED` when it does not fit the agent's budget); once
   * it answers, `settle` records it in the usage log beside the LLM calls, so `openlegion costs`
   * and the budgets count it.
   */
  openFlat(request: FlatChargeRequest): FlatCharge {
    const { gate, log } = this.#deps;
    const billedTo = this.#billedTo(request.agent);
    const reservation = request.agent === OPERATOR ? undefined : gate.reserve(request.agent, request.usd);
    let done = false;
    const release = () => {
      if (done) return;
      done = true;
      if (reservation) gate.release(reservation);
    };
    return {
      release,
      settle: () => {
        if (done) return;
        release();
        const record: UsageRecord = {
          at: this.#deps.now(),
          agent: request.agent,
          billed_to: billedTo,
          model: request.model,
          prompt_tokens: 0,
          completion_tokens: 0,
          cached_tokens: 0,
          cost_usd: request.usd,
          request_id: request.requestId,
          trace_id: request.traceId,
          estimated: 0,
        };
        gate.recorded(record);
        log
          .record(record)
          .catch((error: unknown) =>
            this.#deps.warn(`a call's usage could not be recorded: ${String(error)}`),
          );
        this.#deps.onRecorded?.(record);
      },
    };
  }

  #billedTo(agent: string): string {
    return agent === OPERATOR ? OPERATOR : (this.#deps.ownerOf?.(agent) ?? agent);
  }

  open(request: ChargeRequest): Charge {
    const { config, gate, log } = this.#deps;
    // Read when the call starts: a temporary agent may have left the config by the time it ends.
    const billedTo = this.#billedTo(request.agent);
    const price = priceOf(config, request.model);
    if (!price && !this.#unpriced.has(request.model)) {
      this.#unpriced.add(request.model);
      this.#deps.warn(
        `no price for ${request.model}: its calls are recorded at $0 and budgets do not limit them; set llm.prices."${request.model}" in mesh.yaml`,
      );
    }
    const promptChars =
      request.bodyLength ?? JSON.stringify(request.body.messages ?? request.body.input ?? '').length;
    const prompt = Math.ceil(promptChars / 3);
    const maxOutput =
      request.kind === 'embeddings'
        ? 0
        : Number(
            request.body.max_completion_tokens ??
              request.body.max_tokens ??
              price?.max_output_tokens ??
              DEFAULT_MAX_OUTPUT_TOKENS,
          );
    const reservation =
      request.agent === OPERATOR
        ? undefined
        : gate.reserve(request.agent, costOf(price, { prompt, completion: maxOutput }));
    const release = () => {
      if (reservation) gate.release(reservation);
    };
    return {
      release,
      tap: (answer, stream, answeredBy = request.model, onEnd) =>
        tapUsage(answer, stream, prompt, (usage) => {
          const answeredPrice = answeredBy === request.model ? price : priceOf(config, answeredBy);
          const record: UsageRecord = {
            at: this.#deps.now(),
            agent: request.agent,
            billed_to: billedTo,
            model: answeredBy,
            prompt_tokens: usage.prompt,
            completion_tokens: usage.completion,
            cached_tokens: usage.cached,
            cost_usd: costOf(answeredPrice, usage),
            request_id: request.requestId,
            trace_id: request.traceId,
            estimated: usage.estimated ? 1 : 0,
          };
          gate.recorded(record);
          log
            .record(record)
            .catch((error: unknown) =>
              this.#deps.warn(`a call's usage could not be recorded: ${String(error)}`),
            );
          release();
          this.#deps.onRecorded?.(record);
          onEnd?.(record, usage);
        }),
    };
  }
}
