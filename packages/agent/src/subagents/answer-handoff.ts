import { backoffFrom, retry } from '@openlegion/infra/clock';
import type { Logger } from 'pino';
import { deliveryMessage } from './subagent-answer.js';
import type { SubagentStore } from './subagent-store.js';
import type { SubagentDelivery, SubagentRecord, SubagentSpec } from './subagent-types.js';

/** Waits between tries to hand an answer to the host (the last repeats until it answers). */
const DELIVERY_RETRY_DELAYS_MS: readonly number[] = [1_000, 5_000, 15_000, 60_000];

export interface AnswerHandoffDeps {
  store: SubagentStore;
  logger: Logger;
  /** Hands an answer to the agent's own lane; without it, answers wait for subagent_result. */
  deliver?: ((delivery: SubagentDelivery) => Promise<void>) | undefined;
  retryMs?: readonly number[] | undefined;
  now: () => number;
  /** A delivery ended (sent, or given up with the agent): the manager may forget old runs. */
  settled: () => void;
}

/**
 * Who gets a subagent's answer, once: the turn that collects it with `subagent_result` (or
 * `subagents_list`'s collect), else, after every turn of the spawning conversation has ended, the
 * agent's own lane as a message (keyed by the run id, retried until the host has it, and marked
 * delivered in agent.db). Never both.
 */
export class AnswerHandoff {
  readonly #deps: AnswerHandoffDeps;
  readonly #collected = new Set<string>();
  /** Turns running now, by conversation: their subagents' answers wait for them to collect. */
  readonly #turns = new Map<string, number>();
  readonly #sending = new Map<string, Promise<void>>();
  /** Aborted when the agent stops: ends the delivery retries (the next start sends again). */
  readonly #stopping = new AbortController();

  constructor(deps: AnswerHandoffDeps) {
    this.#deps = deps;
  }

  /** Whether answers can go out as messages at all (a host to take them). */
  get delivers(): boolean {
    return this.#deps.deliver !== undefined;
  }

  /** A run loaded from agent.db whose answer a tool had already returned. */
  collectedBefore(id: string): void {
    this.#collected.add(id);
  }

  /** Neither collected by a tool nor delivered (or being delivered) as a message. */
  unclaimed(record: SubagentRecord): boolean {
    return (
      !this.#collected.has(record.id) && record.deliveredAt === undefined && !this.#sending.has(record.id)
    );
  }

  /** A tool returned the answer (or the run was killed on purpose): it never goes out as a message. */
  collect(record: SubagentRecord): void {
    if (this.#collected.has(record.id)) return;
    this.#collected.add(record.id);
    this.#deps.store.markCollected(record.id, this.#deps.now());
  }

  sending(id: string): boolean {
    return this.#sending.has(id);
  }

  /** Answers on their way now. */
  inFlight(): Promise<void>[] {
    return [...this.#sending.values()];
  }

  turnStarted(conversationId: string): void {
    this.#turns.set(conversationId, (this.#turns.get(conversationId) ?? 0) + 1);
  }

  /** True when no turn of `conversationId` runs any more (its answers may go out). */
  turnEnded(conversationId: string): boolean {
    const left = (this.#turns.get(conversationId) ?? 1) - 1;
    if (left > 0) {
      this.#turns.set(conversationId, left);
      return false;
    }
    this.#turns.delete(conversationId);
    return true;
  }

  /** An ended answer of the agent's own child that nothing took, while no turn of its conversation runs. */
  deliverIfUnclaimed(record: SubagentRecord, spec: SubagentSpec | undefined): void {
    const { deliver, logger } = this.#deps;
    if (!deliver || !spec || this.#stopping.signal.aborted) return;
    if (record.depth !== 1 || record.state === 'running' || !this.unclaimed(record)) return;
    const conversationId = spec.parentConversation ?? 'default';
    if ((this.#turns.get(conversationId) ?? 0) > 0) return;
    const delivery: SubagentDelivery = {
      key: record.id,
      conversationId,
      message: deliveryMessage(record),
      traceId: spec.traceId,
    };
    const send = async (): Promise<void> => {
      try {
        await retry(() => deliver(delivery), {
          attempts: Number.POSITIVE_INFINITY,
          backoffMs: backoffFrom(this.#deps.retryMs ?? DELIVERY_RETRY_DELAYS_MS),
          retryable: () => true,
          signal: this.#stopping.signal,
          onRetry: (error, attempt, waitMs) =>
            logger.warn(
              { err: error, subagent: record.id, attempt: attempt + 1, retry_ms: waitMs },
              'subagent answer not delivered to the lane yet; trying again',
            ),
        });
      } catch (error) {
        // Only the agent stopping ends the retries: the next start sends it again.
        if (this.#stopping.signal.aborted) return;
        logger.error({ err: error, subagent: record.id }, 'subagent answer not delivered');
        return;
      }
      record.deliveredAt = this.#deps.now();
      this.#deps.store.update(record);
      logger.info({ subagent: record.id, conversation: conversationId }, 'subagent answer delivered');
    };
    const sending = send().finally(() => {
      this.#sending.delete(record.id);
      this.#deps.settled();
    });
    this.#sending.set(record.id, sending);
  }

  /** The agent is stopping: retries end; what was not sent goes at the next start. */
  async stop(): Promise<void> {
    this.#stopping.abort();
    await Promise.allSettled(this.inFlight());
  }

  forget(id: string): void {
    this.#collected.delete(id);
  }
}
