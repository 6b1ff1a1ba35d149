import { randomUUID } from 'node:crypto';
import { systemClock } from '@openlegion/infra/clock';
import { OpenLegionError } from '@openlegion/protocol';
import type { Logger } from 'pino';
import { AnswerHandoff } from './answer-handoff.js';
import { attemptChild, captureLessons, restartVerdict, waitForAny } from './child-run.js';
import type { SquadMemoryClient } from './squad-memory-client.js';
import { clip, stoppedBecause } from './subagent-answer.js';
import { currentSubagentPath } from './subagent-context.js';
import { ProgressJournal } from './subagent-progress.js';
import { SubagentStore } from './subagent-store.js';
import type {
  ChildLoopFactory,
  SubagentDelivery,
  SubagentRecord,
  SubagentSpec,
  SubagentState,
} from './subagent-types.js';

/** Children are depth 1, their children depth 2: a chain never runs deeper than this (seed 003). */
export const MAX_SUBAGENT_DEPTH = 3;
/** Subagents running at once for one agent, whatever their depth: each is a model call stream. */
export const MAX_CONCURRENT_SUBAGENTS = 4;
/** Finished subagents kept for `subagent_result`; older ones are forgotten first (never undelivered ones). */
const KEEP_FINISHED = 50;
/**
 * Times a run found running at start (the agent or host died under it) is run again; past it, it
 * fails saying so: a task that brings the agent down each time must not do it forever.
 */
export const MAX_SUBAGENT_RESTARTS = 2;
/** How often a run that failed while the host was away asks whether it is back. */
const HOST_RETRY_MS = 5_000;

// Kept exported from here too: callers import it with the manager.
export { SUBAGENT_RESULT_MAX_CHARS } from './subagent-answer.js';

/**
 * In-container subagents (seed 003): each a child loop with its own conversation, role, tool
 * profile and workspace subfolder (`<workspace>/subagents/<id>`), run in the background. Its LLM
 * calls go through the host with the agent's own token, so they count against the agent's budget
 * and appear in its costs. Bounded: depth, concurrency, a timeout and a token budget per child.
 *
 * Durable: each run is a row in agent.db. A run found `running` at start (the agent, its
 * container or the host died under it) is run again, told what it had done (its journal), at most
 * {@link MAX_SUBAGENT_RESTARTS} times, its timeout counted from its first start. An answer the
 * spawning turn did not collect (the turn ended, or the agent restarted) goes to the agent's own
 * lane as a message through `deliver`, keyed by the run id, and is marked delivered once the host
 * has it: the answer reaches the agent once.
 */
export class SubagentManager {
  readonly #records = new Map<string, SubagentRecord>();
  readonly #specs = new Map<string, SubagentSpec>();
  /** Each run's finished tool calls, persisted as they happen: a re-run goes on from them. */
  readonly #journals = new Map<string, ProgressJournal>();
  /** Each live run's chain of ids from the agent down, sent with its calls so traces nest. */
  readonly #paths = new Map<string, string>();
  readonly #running = new Map<string, { controller: AbortController; finished: Promise<void> }>();
  readonly #handoff: AnswerHandoff;
  readonly #store: SubagentStore;

  constructor(
    private readonly deps: {
      workspace: string;
      childLoop: ChildLoopFactory;
      logger: Logger;
      /** Squad memory through the host; without it a spawn's `squad` is refused. */
      squads?: SquadMemoryClient;
      /** Where runs are kept (agent.db); without it, in memory (gone with the process). */
      store?: SubagentStore;
      /** Hands an answer no turn collected to the agent's own lane; without it, answers wait for subagent_result. */
      deliver?: (delivery: SubagentDelivery) => Promise<void>;
      deliveryRetryMs?: readonly number[];
      /**
       * Whether the host answers this agent (its token still good). A child that failed while it
       * did not is run again once it does: the host was killed or is replacing this agent.
       */
      hostAnswers?: () => Promise<boolean>;
      hostRetryMs?: number;
      now?: () => number;
    },
  ) {
    this.#store = deps.store ?? SubagentStore.open(':memory:');
    this.#handoff = new AnswerHandoff({
      store: this.#store,
      logger: deps.logger,
      deliver: deps.deliver,
      retryMs: deps.deliveryRetryMs,
      now: () => this.#now(),
      settled: () => this.#forgetOld(),
    });
    for (const run of this.#store.all()) {
      this.#records.set(run.record.id, run.record);
      this.#specs.set(run.record.id, run.spec);
      if (run.record.state === 'running')
        this.#journals.set(run.record.id, new ProgressJournal(run.progress));
      if (run.collectedAt !== undefined) this.#handoff.collectedBefore(run.record.id);
    }
  }

  /**
   * After a start: runs the last process left `running` are run again (or ended, saying why), and
   * answers not yet handed over are sent. Call once the child loops can be built.
   */
  resume(): void {
    const now = this.#now();
    for (const record of this.#records.values()) {
      if (record.state !== 'running' || this.#running.has(record.id)) continue;
      const spec = this.#spec(record.id);
      const verdict = restartVerdict(record, spec, now, MAX_SUBAGENT_RESTARTS);
      if ('end' in verdict) {
        this.#end(record, verdict.end, verdict.reason);
        continue;
      }
      record.restarts += 1;
      this.#store.update(record);
      this.deps.logger.warn(
        { subagent: record.id, restarts: record.restarts },
        'subagent was running when the agent stopped; running it again',
      );
      this.#launch(record, spec, verdict.rerunForMs);
    }
    for (const record of this.#records.values()) this.#deliver(record);
  }

  spawn(spec: SubagentSpec): SubagentRecord {
    const depth = spec.parentDepth + 1;
    if (depth > MAX_SUBAGENT_DEPTH)
      throw new OpenLegionError(
        'REQUEST_INVALID',
        `a subagent at depth ${spec.parentDepth} may not spawn: subagents nest ${MAX_SUBAGENT_DEPTH} deep at most; do the work yourself`,
      );
    if (this.#running.size >= MAX_CONCURRENT_SUBAGENTS)
      throw new OpenLegionError(
        'REQUEST_INVALID',
        `${this.#running.size} subagents are running (at most ${MAX_CONCURRENT_SUBAGENTS} at once); wait for one with subagent_result or end one with subagent_kill`,
      );
    const id = `sub-${randomUUID().slice(0, 8)}`;
    const record: SubagentRecord = {
      id,
      task: spec.task,
      role: spec.role,
      depth,
      state: 'running',
      startedAt: this.#now(),
      tokens: 0,
      restarts: 0,
      ...(spec.squad ? { squad: spec.squad } : {}),
    };
    this.#store.insert(record, spec);
    // Spawned from a subagent's tool call, the run is inside its parent's context.
    const parentPath = currentSubagentPath();
    this.#paths.set(id, parentPath ? `${parentPath}/${id}` : id);
    this.#records.set(id, record);
    this.#specs.set(id, spec);
    this.#launch(record, spec, spec.timeoutMs);
    return { ...record };
  }

  list(): SubagentRecord[] {
    return [...this.#records.values()].map((record) => this.#view(record));
  }

  /**
   * The record once it ended, or as it stands after `waitMs`. An answer returned here is
   * collected: it never goes out as a message too.
   */
  async result(id: string, waitMs: number, signal?: AbortSignal): Promise<SubagentRecord> {
    const record = this.#record(id);
    const running = this.#running.get(id);
    if (running && waitMs > 0) await waitForAny([running.finished], waitMs, signal);
    if (record.state !== 'running' && this.#handoff.unclaimed(record)) this.#handoff.collect(record);
    return this.#view(record);
  }

  /**
   * Every answer not collected (nor sent as a message) yet, after waiting up to `waitMs` for the
   * running ones to end (the fan-out pattern: spawn several, then collect them all). Each is
   * returned once.
   */
  async collect(waitMs: number, signal?: AbortSignal): Promise<{ ended: SubagentRecord[]; running: number }> {
    const running = [...this.#running.values()].map(({ finished }) => finished);
    if (running.length > 0 && waitMs > 0) await waitForAny(running, waitMs, signal);
    const ended = [...this.#records.values()].filter(
      (record) => record.state !== 'running' && this.#handoff.unclaimed(record),
    );
    for (const record of ended) this.#handoff.collect(record);
    return { ended: ended.map((record) => this.#view(record)), running: this.#running.size };
  }

  kill(id: string): SubagentRecord {
    const record = this.#record(id);
    // Killed on purpose: its "stopped" needs no message later.
    this.#handoff.collect(record);
    this.#running.get(id)?.controller.abort('killed');
    return this.#view(record);
  }

  /** A turn of the agent's began in `conversationId`: its subagents' answers wait for it. */
  turnStarted(conversationId: string): void {
    this.#handoff.turnStarted(conversationId);
  }

  /** The turn ended: answers of that conversation it did not collect go out as messages. */
  turnEnded(conversationId: string): void {
    if (!this.#handoff.turnEnded(conversationId)) return;
    for (const record of this.#records.values())
      if (this.#specs.get(record.id)?.parentConversation === conversationId) this.#deliver(record);
  }

  /** Settles when no run is running and no answer is being sent (tests; a clean stop). */
  async idle(): Promise<void> {
    for (;;) {
      const pending = [
        ...[...this.#running.values()].map(({ finished }) => finished),
        ...this.#handoff.inFlight(),
      ];
      if (pending.length === 0) return;
      await Promise.all(pending);
    }
  }

  /**
   * The agent is stopping: running children are stopped but stay `running` in agent.db, so the
   * next start runs them again; answers not sent yet are sent then.
   */
  async close(): Promise<void> {
    const handoffStopped = this.#handoff.stop();
    for (const { controller } of this.#running.values()) controller.abort('shutdown');
    await Promise.all([...this.#running.values()].map(({ finished }) => finished));
    await handoffStopped;
    if (!this.deps.store) this.#store.close();
  }

  #launch(record: SubagentRecord, spec: SubagentSpec, timeoutMs: number): void {
    const controller = new AbortController();
    const timer = setTimeout(() => controller.abort('timed_out'), timeoutMs);
    const finished = this.#run(record, spec, controller).then((ended) => {
      clearTimeout(timer);
      this.#running.delete(record.id);
      if (!ended) return;
      this.#deliver(record);
      this.#forgetOld();
    });
    this.#running.set(record.id, { controller, finished });
  }

  /**
   * Runs the child, again when it failed because the host went away (killed or restarting: the
   * failure is not the child's); false when the agent stopped under it (it stays `running` in
   * agent.db, to run again at the next start).
   */
  async #run(record: SubagentRecord, spec: SubagentSpec, controller: AbortController): Promise<boolean> {
    const log = this.deps.logger.child({ subagent: record.id, depth: record.depth });
    for (;;) {
      const { answer, failure } = await attemptChild({
        record,
        spec,
        controller,
        childLoop: this.deps.childLoop,
        workspace: this.deps.workspace,
        store: this.#store,
        journal: this.#journal(record.id),
        // Re-run after a restart, only the agent's own children run: their path is their id.
        path: this.#paths.get(record.id) ?? record.id,
      });
      if (controller.signal.aborted) return this.#stopped(record, spec, controller.signal, log);
      if (answer !== undefined && failure === undefined) {
        const captured =
          spec.squad && this.deps.squads
            ? await captureLessons(this.deps.squads, spec.squad, { record, answer, spec }, this.deps.logger)
            : undefined;
        this.#end(record, 'done', clip(answer), captured);
        return true;
      }
      const reason = clip(failure ?? 'the subagent ended without an answer');
      if (!this.deps.hostAnswers || (await this.deps.hostAnswers())) {
        this.#end(record, 'failed', reason);
        return true;
      }
      log.warn(
        { failure: reason },
        'subagent failed while the host was away; it runs again when the host answers',
      );
      await this.#untilHostAnswers(controller.signal);
      if (controller.signal.aborted) return this.#stopped(record, spec, controller.signal, log);
      if (record.restarts >= MAX_SUBAGENT_RESTARTS) {
        this.#end(
          record,
          'failed',
          `stopped: the host went away while it ran, ${record.restarts + 1} times (a subagent is run again ${MAX_SUBAGENT_RESTARTS} times at most); last failure: ${reason}`,
        );
        return true;
      }
      record.restarts += 1;
      this.#store.update(record);
    }
  }

  /** An aborted run: ended as killed, timed out or over budget; left running when the agent stops. */
  #stopped(record: SubagentRecord, spec: SubagentSpec, signal: AbortSignal, log: Logger): boolean {
    const reason = String(signal.reason);
    if (reason === 'timed_out' || reason === 'over_budget' || reason === 'killed') {
      this.#end(record, reason, stoppedBecause(reason, spec));
      return true;
    }
    log.info({ tokens: record.tokens }, 'subagent stopped with the agent; it runs again at the next start');
    return false;
  }

  async #untilHostAnswers(signal: AbortSignal): Promise<void> {
    const delayMs = this.deps.hostRetryMs ?? HOST_RETRY_MS;
    while (!signal.aborted) {
      // Ended early by the signal (the agent stopping, or a kill): the loop condition sees it.
      await systemClock.sleep(delayMs, signal).catch(() => undefined);
      if (!signal.aborted && (await this.deps.hostAnswers?.())) return;
    }
  }

  #end(
    record: SubagentRecord,
    state: SubagentState,
    result: string,
    captured?: SubagentRecord['captured'],
  ): void {
    record.state = state;
    record.result = result;
    record.endedAt = this.#now();
    if (captured) record.captured = captured;
    // Only a re-run reads the journal: an ended run's goes with it (agent.db keeps its copy).
    this.#journals.delete(record.id);
    this.#store.update(record);
    this.deps.logger.info(
      {
        subagent: record.id,
        depth: record.depth,
        state,
        tokens: record.tokens,
        ms: record.endedAt - record.startedAt,
      },
      'subagent ended',
    );
  }

  #deliver(record: SubagentRecord): void {
    this.#handoff.deliverIfUnclaimed(record, this.#specs.get(record.id));
  }

  #view(record: SubagentRecord): SubagentRecord {
    return { ...record, ...(this.#handoff.sending(record.id) ? { sending: true } : {}) };
  }

  #record(id: string): SubagentRecord {
    const record = this.#records.get(id);
    if (!record)
      throw new OpenLegionError('NOT_FOUND', `no subagent "${id}" (subagents_list shows them)`, {
        details: { id },
      });
    return record;
  }

  #journal(id: string): ProgressJournal {
    let journal = this.#journals.get(id);
    if (!journal) {
      journal = new ProgressJournal();
      this.#journals.set(id, journal);
    }
    return journal;
  }

  #spec(id: string): SubagentSpec {
    const spec = this.#specs.get(id);
    // Records and specs are loaded and added together.
    if (!spec) throw new Error(`subagent ${id} has no spec`);
    return spec;
  }

  /** Forget finished runs past the newest 50; an answer still owed to the agent is kept. */
  #forgetOld(): void {
    const finished = [...this.#records.values()].filter(
      (record) =>
        record.state !== 'running' &&
        (!this.#handoff.delivers || record.depth !== 1 || !this.#handoff.unclaimed(record)) &&
        !this.#handoff.sending(record.id),
    );
    const old = finished.slice(0, Math.max(0, finished.length - KEEP_FINISHED)).map((record) => record.id);
    if (old.length === 0) return;
    for (const id of old) {
      this.#records.delete(id);
      this.#specs.delete(id);
      this.#paths.delete(id);
      this.#handoff.forget(id);
    }
    this.#store.delete(old);
  }

  #now(): number {
    return this.deps.now?.() ?? Date.now();
  }
}
