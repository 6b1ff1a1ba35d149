import { randomUUID } from 'node:crypto';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { backoffFrom, retry } from '@openlegion/infra/clock';
import { captureSession } from '@openlegion/memory';
import { type ChatEvent, OpenLegionError } from '@openlegion/protocol';
import type { Logger } from 'pino';
import type { AgentLoop } from '../loop/agent-loop.js';
import type { SquadMemoryClient } from './squad-memory-client.js';
import { clip, deliveryMessage, stoppedBecause } from './subagent-answer.js';
import { currentSubagentPath, runAsSubagent } from './subagent-context.js';
import { ProgressJournal, resumeNote } from './subagent-progress.js';
import { SubagentStore } from './subagent-store.js';

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
/** Waits between tries to hand an answer to the host (the last repeats until it answers). */
const DELIVERY_RETRY_DELAYS_MS: readonly number[] = [1_000, 5_000, 15_000, 60_000];
/** How often a run that failed while the host was away asks whether it is back. */
const HOST_RETRY_MS = 5_000;

// Kept exported from here too: callers import it with the manager.
export { SUBAGENT_RESULT_MAX_CHARS } from './subagent-answer.js';

export interface SubagentSpec {
  task: string;
  /** What the child is sent, when more than the task (squad memory before it); else the task. */
  prompt?: string;
  /** The squad whose memory the child's lessons are captured into (seed 003). */
  squad?: string;
  role: string;
  /** A tool profile or names, within the parent's own tools. */
  tools: string | readonly string[];
  timeoutMs: number;
  /** Prompt plus completion tokens the child may spend; it is stopped past it. */
  maxTokens: number;
  /** The spawning agent or subagent's depth (0 for the agent itself). */
  parentDepth: number;
  traceId?: string | undefined;
  /** The conversation whose turn spawned it: an answer no turn collected is sent back into it. */
  parentConversation?: string | undefined;
}

export type SubagentState = 'running' | 'done' | 'failed' | 'timed_out' | 'over_budget' | 'killed';

export interface SubagentRecord {
  id: string;
  task: string;
  role: string;
  depth: number;
  state: SubagentState;
  startedAt: number;
  endedAt?: number;
  tokens: number;
  /** The answer (done), or what went wrong. */
  result?: string;
  squad?: string;
  /** Lessons captured into the squad's memory from its answer, and lessons distilled. */
  captured?: { lessons: number; distilled: number; error?: string };
  /** Times it was run again after the agent restarted under it. */
  restarts: number;
  /** When the host took its answer as a message to the agent's own lane (it went out once). */
  deliveredAt?: number;
  /** Its answer is on its way to the host as a message now. */
  sending?: boolean;
}

/** An answer sent to the agent's own lane (`POST /mesh/self/inbox`), resolved once the host has it. */
export interface SubagentDelivery {
  /** The run id: the host drops a key it has seen, so a retry after a crash is not a second turn. */
  key: string;
  conversationId: string;
  message: string;
  traceId?: string | undefined;
}

/** Builds the child's loop: its tools (filtered, and spawning only below the depth cap) and its workspace. */
export type ChildLoopFactory = (child: {
  depth: number;
  role: string;
  tools: SubagentSpec['tools'];
  workspace: string;
}) => AgentLoop;

/**
 * In-container subagents (seed 003): each a child loop with its own conversation, role, tool
 * profile and workspace subfolder (`<workspace>/subagents/<id>`), run in the background. Its LLM
 * calls go through the host with the agent's own token, so they count against the agent's budget
 * and appear in its costs. Bounded: depth, concurrency, a timeout and a token budget per child.
 */
/**
 * In-container subagents (seed 003): each a child loop with its own conversation, role, tool
 * profile and workspace subfolder (`<workspace>/subagents/<id>`), run in the background. Its LLM
 * calls go through the host with the agent's own token, so they count against the agent's budget
 * and appear in its costs. Bounded: depth, concurrency, a timeout and a token budget per child.
 *
 * Durable: each run is a row in agent.db. A run found `running` at start (the agent, its
 * container or the host died under it) is run again from its task, at most
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
  readonly #collected = new Set<string>();
  /** Turns running now, by conversation: their subagents' answers wait for them to collect. */
  readonly #turns = new Map<string, number>();
  readonly #sending = new Map<string, Promise<void>>();
  /** Aborted when the agent stops: ends the delivery retries (the next start sends again). */
  readonly #stopping = new AbortController();
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
    for (const run of this.#store.all()) {
      this.#records.set(run.record.id, run.record);
      this.#specs.set(run.record.id, run.spec);
      if (run.record.state === 'running')
        this.#journals.set(run.record.id, new ProgressJournal(run.progress));
      if (run.collectedAt !== undefined) this.#collected.add(run.record.id);
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
      const elapsed = now - record.startedAt;
      if (record.depth > 1)
        this.#end(
          record,
          'failed',
          'stopped: the agent restarted while it ran (only the agent’s own subagents are run again)',
        );
      else if (elapsed >= spec.timeoutMs)
        this.#end(
          record,
          'timed_out',
          `${stoppedBecause('timed_out', spec)} (counted from its first start; the agent restarted meanwhile)`,
        );
      else if (record.restarts >= MAX_SUBAGENT_RESTARTS)
        this.#end(
          record,
          'failed',
          `stopped: the agent restarted while it ran, ${record.restarts + 1} times (a subagent is run again ${MAX_SUBAGENT_RESTARTS} times at most)`,
        );
      else {
        record.restarts += 1;
        this.#store.update(record);
        this.deps.logger.warn(
          { subagent: record.id, restarts: record.restarts },
          'subagent was running when the agent stopped; running it again',
        );
        this.#launch(record, spec, spec.timeoutMs - elapsed);
      }
    }
    for (const record of this.#records.values()) this.#deliverIfUnclaimed(record);
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
    if (running && waitMs > 0) await waitFor([running.finished], waitMs, signal);
    if (record.state !== 'running' && this.#unclaimed(record)) this.#collect(record);
    return this.#view(record);
  }

  /**
   * Every answer not collected (nor sent as a message) yet, after waiting up to `waitMs` for the
   * running ones to end (the fan-out pattern: spawn several, then collect them all). Each is
   * returned once.
   */
  async collect(waitMs: number, signal?: AbortSignal): Promise<{ ended: SubagentRecord[]; running: number }> {
    const running = [...this.#running.values()].map(({ finished }) => finished);
    if (running.length > 0 && waitMs > 0) await waitFor(running, waitMs, signal);
    const ended = [...this.#records.values()].filter(
      (record) => record.state !== 'running' && this.#unclaimed(record),
    );
    for (const record of ended) this.#collect(record);
    return { ended: ended.map((record) => this.#view(record)), running: this.#running.size };
  }

  kill(id: string): SubagentRecord {
    const record = this.#record(id);
    // Killed on purpose: its "stopped" needs no message later.
    this.#collect(record);
    this.#running.get(id)?.controller.abort('killed');
    return this.#view(record);
  }

  /** A turn of the agent's began in `conversationId`: its subagents' answers wait for it. */
  turnStarted(conversationId: string): void {
    this.#turns.set(conversationId, (this.#turns.get(conversationId) ?? 0) + 1);
  }

  /** The turn ended: answers of that conversation it did not collect go out as messages. */
  turnEnded(conversationId: string): void {
    const left = (this.#turns.get(conversationId) ?? 1) - 1;
    if (left > 0) {
      this.#turns.set(conversationId, left);
      return;
    }
    this.#turns.delete(conversationId);
    for (const record of this.#records.values())
      if (this.#specs.get(record.id)?.parentConversation === conversationId) this.#deliverIfUnclaimed(record);
  }

  /** Settles when no run is running and no answer is being sent (tests; a clean stop). */
  async idle(): Promise<void> {
    while (this.#running.size > 0 || this.#sending.size > 0)
      await Promise.all([
        ...[...this.#running.values()].map(({ finished }) => finished),
        ...this.#sending.values(),
      ]);
  }

  /**
   * The agent is stopping: running children are stopped but stay `running` in agent.db, so the
   * next start runs them again; answers not sent yet are sent then.
   */
  async close(): Promise<void> {
    this.#stopping.abort();
    for (const { controller } of this.#running.values()) controller.abort('shutdown');
    await Promise.all([...this.#running.values()].map(({ finished }) => finished));
    await Promise.allSettled([...this.#sending.values()]);
    if (!this.deps.store) this.#store.close();
  }

  #launch(record: SubagentRecord, spec: SubagentSpec, timeoutMs: number): void {
    const controller = new AbortController();
    const timer = setTimeout(() => controller.abort('timed_out'), timeoutMs);
    const finished = this.#run(record, spec, controller).then((ended) => {
      clearTimeout(timer);
      this.#running.delete(record.id);
      if (!ended) return;
      this.#deliverIfUnclaimed(record);
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
      const { answer, failure } = await this.#attempt(record, spec, controller);
      if (controller.signal.aborted) return this.#stopped(record, spec, controller.signal, log);
      if (answer !== undefined && failure === undefined) {
        const captured =
          spec.squad && this.deps.squads ? await this.#capture(spec.squad, record, answer, spec) : undefined;
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

  /** One run of the child loop: its answer, or what went wrong. */
  async #attempt(
    record: SubagentRecord,
    spec: SubagentSpec,
    controller: AbortController,
  ): Promise<{ answer?: string; failure?: string }> {
    const workspace = join(this.deps.workspace, 'subagents', record.id);
    mkdirSync(workspace, { recursive: true });
    const loop = this.deps.childLoop({ depth: record.depth, role: spec.role, tools: spec.tools, workspace });
    const journal = this.#journal(record.id);
    let answer: string | undefined;
    let failure: string | undefined;
    const emit = (event: ChatEvent) => {
      if (event.type === 'usage') {
        record.tokens += event.prompt_tokens + event.completion_tokens;
        this.#store.setTokens(record.id, record.tokens);
        if (record.tokens > spec.maxTokens) controller.abort('over_budget');
      } else if (event.type === 'done') answer = event.text;
      else if (event.type === 'error') failure = `${event.code}: ${event.message}`;
      else if (journal.record(event)) this.#store.setProgress(record.id, journal.steps);
    };
    const message = spec.prompt ?? spec.task;
    // Re-run after a restart, only the agent's own children run: their path is their id.
    const path = this.#paths.get(record.id) ?? record.id;
    try {
      await runAsSubagent(path, () =>
        loop.runTask(
          {
            message:
              record.restarts > 0 ? `${resumeNote(record.restarts, journal.steps)}\n\n${message}` : message,
            conversationId: `subagent-${record.id}`,
            ...(spec.traceId ? { traceId: spec.traceId } : {}),
          },
          emit,
          controller.signal,
        ),
      );
    } catch (error) {
      failure = error instanceof Error ? error.message : String(error);
    }
    return { ...(answer !== undefined ? { answer } : {}), ...(failure !== undefined ? { failure } : {}) };
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
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, delayMs);
        signal.addEventListener(
          'abort',
          () => {
            clearTimeout(timer);
            resolve();
          },
          { once: true },
        );
      });
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

  /** An ended answer of the agent's own child that nothing took, while no turn of its conversation runs. */
  #deliverIfUnclaimed(record: SubagentRecord): void {
    const spec = this.#specs.get(record.id);
    const deliver = this.deps.deliver;
    if (!deliver || !spec || this.#stopping.signal.aborted) return;
    if (record.depth !== 1 || record.state === 'running' || !this.#unclaimed(record)) return;
    const conversationId = spec.parentConversation ?? 'default';
    if ((this.#turns.get(conversationId) ?? 0) > 0) return;
    const delivery: SubagentDelivery = {
      key: record.id,
      conversationId,
      message: deliveryMessage(record),
      traceId: spec.traceId,
    };
    const delays = this.deps.deliveryRetryMs ?? DELIVERY_RETRY_DELAYS_MS;
    const send = async (): Promise<void> => {
      try {
        await retry(() => deliver(delivery), {
          attempts: Number.POSITIVE_INFINITY,
          backoffMs: backoffFrom(delays),
          retryable: () => true,
          signal: this.#stopping.signal,
          onRetry: (error, attempt, waitMs) =>
            this.deps.logger.warn(
              { err: error, subagent: record.id, attempt: attempt + 1, retry_ms: waitMs },
              'subagent answer not delivered to the lane yet; trying again',
            ),
        });
      } catch (error) {
        // Only the agent stopping ends the retries: the next start sends it again.
        if (this.#stopping.signal.aborted) return;
        this.deps.logger.error({ err: error, subagent: record.id }, 'subagent answer not delivered');
        return;
      }
      record.deliveredAt = this.#now();
      this.#store.update(record);
      this.deps.logger.info(
        { subagent: record.id, conversation: conversationId },
        'subagent answer delivered',
      );
    };
    const sending = send().finally(() => {
      this.#sending.delete(record.id);
      this.#forgetOld();
    });
    this.#sending.set(record.id, sending);
  }

  /** Neither collected by a tool nor delivered (or being delivered) as a message. */
  #unclaimed(record: SubagentRecord): boolean {
    return (
      !this.#collected.has(record.id) && record.deliveredAt === undefined && !this.#sending.has(record.id)
    );
  }

  #collect(record: SubagentRecord): void {
    if (this.#collected.has(record.id)) return;
    this.#collected.add(record.id);
    this.#store.markCollected(record.id, this.#now());
  }

  #view(record: SubagentRecord): SubagentRecord {
    return { ...record, ...(this.#sending.has(record.id) ? { sending: true } : {}) };
  }

  /** The child's `## Session Memory` into its squad's memory; a failure is reported, not thrown. */
  async #capture(squad: string, record: SubagentRecord, answer: string, spec: SubagentSpec) {
    try {
      const done = await captureSession(this.deps.squads as SquadMemoryClient, squad, {
        id: record.id,
        answer,
        traceId: spec.traceId,
      });
      return { lessons: done.captured, distilled: done.distilled };
    } catch (error) {
      this.deps.logger.warn({ err: error, squad, subagent: record.id }, 'squad memory capture failed');
      return { lessons: 0, distilled: 0, error: error instanceof Error ? error.message : String(error) };
    }
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
        (!this.deps.deliver || record.depth !== 1 || !this.#unclaimed(record)) &&
        !this.#sending.has(record.id),
    );
    const old = finished.slice(0, Math.max(0, finished.length - KEEP_FINISHED)).map((record) => record.id);
    if (old.length === 0) return;
    for (const id of old) {
      this.#records.delete(id);
      this.#specs.delete(id);
      this.#paths.delete(id);
      this.#collected.delete(id);
    }
    this.#store.delete(old);
  }

  #now(): number {
    return this.deps.now?.() ?? Date.now();
  }
}

/** Until one of `pending` settles, `waitMs` passes or `signal` aborts. */
async function waitFor(pending: Promise<unknown>[], waitMs: number, signal?: AbortSignal): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const gaveUp = new Promise<void>((resolve) => {
    timer = setTimeout(resolve, waitMs);
    signal?.addEventListener('abort', () => resolve(), { once: true });
  });
  await Promise.race([Promise.all(pending), gaveUp]);
  clearTimeout(timer);
}
