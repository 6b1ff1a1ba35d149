import type { Clock, Timer } from '@openlegion/infra/clock';
import { type ChatEvent, isOpenLegionError, OpenLegionError } from '@openlegion/protocol';
import type { Logger } from 'pino';
import type { LaneItem } from './lane-item.js';
import type { LaneRepository } from './lane-repository.js';

/** What a listener of one item hears: its events as they stream, then its final state. */
export type LaneItemEvent = { type: 'event'; event: ChatEvent } | { type: 'settled'; item: LaneItem };

export interface LaneDispatcherDeps {
  repo: LaneRepository;
  clock: Clock;
  logger: Logger;
  /** Whether the agent can take work now; the dispatcher is kicked again when it becomes ready. */
  isReady(agent: string): boolean;
  /** Run one item on its agent, emitting its events; resolves with the reply text. */
  runTurn(item: LaneItem, emit: (event: ChatEvent) => void, signal: AbortSignal): Promise<string>;
  /** Hand a finished item's result to where the work came from (channels, cron, workflows). */
  deliver(item: LaneItem): Promise<void>;
  watchdogMs: number;
  /** Told when an item starts running and when it settles (traces). */
  onItem?: (item: LaneItem, phase: 'running' | 'settled') => void;
}

/** Times a turn whose agent went away is tried again (once it is back) before it fails visibly. */
const MAX_ATTEMPTS = 2;
/** How long a lane whose agent went away waits for it to come back (a restart) before trying anyway. */
const AGENT_BACK_WAIT_MS = 30_000;

/** Thrown into a running turn to cancel it (the client left, or the operator cancelled). */
class LaneCancellation extends Error {}

interface RunningTurn {
  item: LaneItem;
  controller: AbortController;
}

/**
 * Runs each agent's lane: one item at a time per agent, agents in parallel. Items are taken from
 * mesh.db, so a host restart continues where it stopped. A turn that streams nothing for the
 * watchdog's time is ended with AGENT_HUNG; `interrupt` aborts the running turn.
 */
export class LaneDispatcher {
  readonly #deps: LaneDispatcherDeps;
  readonly #running = new Map<string, RunningTurn>();
  readonly #listeners = new Map<number, Set<(event: LaneItemEvent) => void>>();
  readonly #wakeups = new Map<string, Timer>();
  readonly #settling = new Set<Promise<void>>();
  /** Agents that went away mid-turn: their lane waits until they are ready again. */
  readonly #away = new Map<string, Timer>();
  #stopped = false;

  constructor(deps: LaneDispatcherDeps) {
    this.#deps = deps;
  }

  /** Listen to one item until it settles. Returns the unsubscribe function. */
  subscribe(id: number, listener: (event: LaneItemEvent) => void): () => void {
    const listeners = this.#listeners.get(id) ?? new Set();
    listeners.add(listener);
    this.#listeners.set(id, listeners);
    return () => listeners.delete(listener);
  }

  /** The item running on an agent's lane, if any. */
  runningOn(agent: string): LaneItem | undefined {
    return this.#running.get(agent)?.item;
  }

  /** Start the agent's next item if it is idle and ready; wake up later for an item not due yet. */
  kick(agent: string): void {
    if (this.#stopped || this.#running.has(agent) || this.#away.has(agent) || !this.#deps.isReady(agent))
      return;
    const now = this.#deps.clock.now();
    const item = this.#deps.repo.next(agent, now);
    if (item) {
      const turn = this.#run(item).finally(() => this.#settling.delete(turn));
      this.#settling.add(turn);
      return;
    }
    const dueAt = this.#deps.repo.nextDueAt(agent);
    if (dueAt !== undefined && !this.#wakeups.has(agent)) {
      this.#wakeups.set(
        agent,
        this.#deps.clock.setTimeout(() => {
          this.#wakeups.delete(agent);
          this.kick(agent);
        }, dueAt - now),
      );
    }
  }

  /** The agent (re)started and is ready: its lane goes on. */
  agentReady(agent: string): void {
    this.#away.get(agent)?.cancel();
    this.#away.delete(agent);
    this.kick(agent);
  }

  /** End the agent's running turn with AGENT_TURN_INTERRUPTED (its next item runs after). */
  interrupt(agent: string): void {
    this.#running
      .get(agent)
      ?.controller.abort(
        new OpenLegionError('AGENT_TURN_INTERRUPTED', `a newer message interrupted ${agent}'s turn`),
      );
  }

  /** Cancel an item: a queued one never runs, a running one is aborted. */
  cancel(id: number): void {
    const item = this.#deps.repo.get(id);
    if (item?.state === 'queued') {
      this.#settle(this.#deps.repo.finish(id, { state: 'cancelled', now: this.#deps.clock.now() }));
      return;
    }
    const running = item && this.#running.get(item.agent);
    if (running?.item.id === id) running.controller.abort(new LaneCancellation('cancelled'));
  }

  /** Stop taking work; abort running turns (they run again after the next start). */
  async stop(): Promise<void> {
    this.#stopped = true;
    for (const timer of [...this.#wakeups.values(), ...this.#away.values()]) timer.cancel();
    for (const { controller } of this.#running.values())
      controller.abort(new LaneCancellation('host stopping'));
    await Promise.allSettled([...this.#settling]);
  }

  async #run(queued: LaneItem): Promise<void> {
    const { repo, clock } = this.#deps;
    const controller = new AbortController();
    const item = repo.markRunning(queued.id, clock.now());
    this.#running.set(item.agent, { item, controller });
    this.#deps.onItem?.(item, 'running');
    const log = this.#deps.logger.child({ agent: item.agent, lane_item: item.id, trace: item.traceId });
    let watchdog = this.#armWatchdog(item, controller);
    let streamed = false;
    const emit = (event: ChatEvent) => {
      streamed = true;
      watchdog.cancel();
      watchdog = this.#armWatchdog(item, controller);
      this.#notify(item.id, { type: 'event', event });
    };
    let settled: LaneItem | undefined;
    try {
      const text = await this.#deps.runTurn(item, emit, controller.signal);
      settled = repo.finish(item.id, { state: 'done', now: clock.now(), text });
      log.info({ ms: clock.now() - (item.startedAt ?? clock.now()) }, 'lane item done');
    } catch (thrown) {
      // Followers that heard nothing yet get the failure with the settled item (an HTTP route can
      // still answer with its status); those mid-stream get an error event.
      const tell = (event: ChatEvent) => (streamed ? emit(event) : undefined);
      settled = this.#failure(item, controller.signal.aborted ? controller.signal.reason : thrown, tell);
      if (settled)
        log.warn({ code: settled.errorCode, state: settled.state }, 'lane item ended without a reply');
      else log.warn('agent went away mid-turn; the item waits for it');
    } finally {
      watchdog.cancel();
      this.#running.delete(item.agent);
    }
    if (settled) await this.#settle(settled);
    this.kick(item.agent);
  }

  /** The final state of a turn that threw, or undefined when it goes back to the queue. */
  #failure(item: LaneItem, reason: unknown, emit: (event: ChatEvent) => void): LaneItem | undefined {
    const now = this.#deps.clock.now();
    if (reason instanceof LaneCancellation) {
      if (this.#stopped) {
        this.#deps.repo.requeue(item.id);
        return undefined;
      }
      return this.#deps.repo.finish(item.id, { state: 'cancelled', now });
    }
    const error = isOpenLegionError(reason)
      ? reason
      : new OpenLegionError('AGENT_NOT_READY', `agent "${item.agent}" went away mid-turn: ${String(reason)}`);
    if (error.code === 'AGENT_NOT_READY' && item.attempts < MAX_ATTEMPTS && !this.#stopped) {
      emit({
        type: 'notice',
        message: `${item.agent} went away mid-turn; it runs again once the agent is back`,
      });
      this.#deps.repo.requeue(item.id);
      this.#awaitReturn(item.agent);
      return undefined;
    }
    emit({ type: 'error', code: error.code, message: error.message, retryable: error.retryable });
    return this.#deps.repo.finish(item.id, {
      state: 'failed',
      now,
      code: error.code,
      message: error.message,
    });
  }

  /** Hold the lane until the agent is ready again (the health monitor restarts it), or a while passes. */
  #awaitReturn(agent: string): void {
    if (this.#away.has(agent)) return;
    this.#away.set(
      agent,
      this.#deps.clock.setTimeout(() => {
        this.#away.delete(agent);
        this.kick(agent);
      }, AGENT_BACK_WAIT_MS),
    );
  }

  async #settle(item: LaneItem): Promise<void> {
    this.#deps.onItem?.(item, 'settled');
    this.#notify(item.id, { type: 'settled', item });
    this.#listeners.delete(item.id);
    if (item.state !== 'done' && item.state !== 'failed') return;
    try {
      await this.#deps.deliver(item);
      this.#deps.repo.markDelivered(item.id, this.#deps.clock.now());
    } catch (error) {
      this.#deps.logger.error({ err: error, lane_item: item.id }, 'delivering a lane result failed');
    }
  }

  #armWatchdog(item: LaneItem, controller: AbortController): Timer {
    const { watchdogMs } = this.#deps;
    return this.#deps.clock.setTimeout(
      () =>
        controller.abort(
          new OpenLegionError(
            'AGENT_HUNG',
            `${item.agent} streamed nothing for ${watchdogMs / 1000}s; the turn was ended`,
          ),
        ),
      watchdogMs,
    );
  }

  #notify(id: number, event: LaneItemEvent): void {
    for (const listener of this.#listeners.get(id) ?? []) listener(event);
  }
}
