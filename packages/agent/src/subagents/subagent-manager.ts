import { randomUUID } from 'node:crypto';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { type ChatEvent, OpenLegionError } from '@openlegion/protocol';
import type { Logger } from 'pino';
import type { AgentLoop } from '../loop/agent-loop.js';
import { captureSession, type SquadMemoryClient } from './squad-memory.js';

/** Children are depth 1, their children depth 2: a chain never runs deeper than this (seed 003). */
export const MAX_SUBAGENT_DEPTH = 3;
/** Subagents running at once for one agent, whatever their depth: each is a model call stream. */
export const MAX_CONCURRENT_SUBAGENTS = 4;
/** Finished subagents kept for `subagent_result`; older ones are forgotten first. */
const KEEP_FINISHED = 50;
/** The longest answer kept of a subagent: it returns into its parent's prompt. */
export const SUBAGENT_RESULT_MAX_CHARS = 16_000;

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
export class SubagentManager {
  readonly #records = new Map<string, SubagentRecord>();
  readonly #running = new Map<string, { controller: AbortController; finished: Promise<void> }>();
  readonly #collected = new Set<string>();

  constructor(
    private readonly deps: {
      workspace: string;
      childLoop: ChildLoopFactory;
      logger: Logger;
      /** Squad memory through the host; without it a spawn's `squad` is refused. */
      squads?: SquadMemoryClient;
      now?: () => number;
    },
  ) {}

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
    const workspace = join(this.deps.workspace, 'subagents', id);
    mkdirSync(workspace, { recursive: true });
    const record: SubagentRecord = {
      id,
      task: spec.task,
      role: spec.role,
      depth,
      state: 'running',
      startedAt: this.#now(),
      tokens: 0,
      ...(spec.squad ? { squad: spec.squad } : {}),
    };
    this.#records.set(id, record);
    const controller = new AbortController();
    const loop = this.deps.childLoop({ depth, role: spec.role, tools: spec.tools, workspace });
    const finished = this.#run(record, loop, spec, controller).finally(() => {
      this.#running.delete(id);
      this.#forgetOld();
    });
    this.#running.set(id, { controller, finished });
    return { ...record };
  }

  list(): SubagentRecord[] {
    return [...this.#records.values()].map((record) => ({ ...record }));
  }

  /** The record once it ended, or as it stands after `waitMs`. */
  async result(id: string, waitMs: number, signal?: AbortSignal): Promise<SubagentRecord> {
    const record = this.#record(id);
    const running = this.#running.get(id);
    if (running && waitMs > 0) {
      let timer: NodeJS.Timeout | undefined;
      const gaveUp = new Promise<void>((resolve) => {
        timer = setTimeout(resolve, waitMs);
        signal?.addEventListener('abort', () => resolve(), { once: true });
      });
      await Promise.race([running.finished, gaveUp]);
      clearTimeout(timer);
    }
    return { ...record };
  }

  /**
   * Every answer not collected yet, after waiting up to `waitMs` for the running ones to end (the
   * fan-out pattern: spawn several, then collect them all). Each is returned once.
   */
  async collect(waitMs: number, signal?: AbortSignal): Promise<{ ended: SubagentRecord[]; running: number }> {
    const running = [...this.#running.values()].map(({ finished }) => finished);
    if (running.length > 0 && waitMs > 0) {
      let timer: NodeJS.Timeout | undefined;
      const gaveUp = new Promise<void>((resolve) => {
        timer = setTimeout(resolve, waitMs);
        signal?.addEventListener('abort', () => resolve(), { once: true });
      });
      await Promise.race([Promise.all(running), gaveUp]);
      clearTimeout(timer);
    }
    const ended = [...this.#records.values()].filter(
      (record) => record.state !== 'running' && !this.#collected.has(record.id),
    );
    for (const record of ended) this.#collected.add(record.id);
    return { ended: ended.map((record) => ({ ...record })), running: this.#running.size };
  }

  kill(id: string): SubagentRecord {
    const record = this.#record(id);
    this.#running.get(id)?.controller.abort('killed');
    return { ...record };
  }

  /** Stop every running child (the agent is shutting down). */
  async close(): Promise<void> {
    for (const { controller } of this.#running.values()) controller.abort('killed');
    await Promise.all([...this.#running.values()].map(({ finished }) => finished));
  }

  async #run(record: SubagentRecord, loop: AgentLoop, spec: SubagentSpec, controller: AbortController) {
    const log = this.deps.logger.child({ subagent: record.id, depth: record.depth });
    const timer = setTimeout(() => controller.abort('timed_out'), spec.timeoutMs);
    let answer: string | undefined;
    let failure: string | undefined;
    const emit = (event: ChatEvent) => {
      if (event.type === 'usage') {
        record.tokens += event.prompt_tokens + event.completion_tokens;
        if (record.tokens > spec.maxTokens) controller.abort('over_budget');
      } else if (event.type === 'done') answer = event.text;
      else if (event.type === 'error') failure = `${event.code}: ${event.message}`;
    };
    try {
      await loop.runTask(
        {
          message: spec.prompt ?? spec.task,
          conversationId: `subagent-${record.id}`,
          ...(spec.traceId ? { traceId: spec.traceId } : {}),
        },
        emit,
        controller.signal,
      );
    } catch (error) {
      failure = error instanceof Error ? error.message : String(error);
    } finally {
      clearTimeout(timer);
    }
    record.endedAt = this.#now();
    const reason = controller.signal.aborted ? String(controller.signal.reason) : undefined;
    if (reason === 'timed_out' || reason === 'over_budget' || reason === 'killed') {
      record.state = reason;
      record.result = stoppedBecause(reason, spec);
    } else if (answer !== undefined && failure === undefined) {
      record.state = 'done';
      record.result = clip(answer);
      if (spec.squad && this.deps.squads)
        record.captured = await this.#capture(spec.squad, record, answer, spec);
    } else {
      record.state = 'failed';
      record.result = clip(failure ?? 'the subagent ended without an answer');
    }
    log.info(
      { state: record.state, tokens: record.tokens, ms: record.endedAt - record.startedAt },
      'subagent ended',
    );
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
    this.#collected.add(id);
    if (!record)
      throw new OpenLegionError('NOT_FOUND', `no subagent "${id}" (subagents_list shows them)`, {
        details: { id },
      });
    return record;
  }

  #forgetOld(): void {
    const finished = [...this.#records.values()].filter((record) => record.state !== 'running');
    for (const record of finished.slice(0, Math.max(0, finished.length - KEEP_FINISHED))) {
      this.#records.delete(record.id);
      this.#collected.delete(record.id);
    }
  }

  #now(): number {
    return this.deps.now?.() ?? Date.now();
  }
}

function stoppedBecause(reason: 'timed_out' | 'over_budget' | 'killed', spec: SubagentSpec): string {
  if (reason === 'timed_out')
    return `stopped: it ran past its ${Math.round(spec.timeoutMs / 1000)} s timeout`;
  if (reason === 'over_budget') return `stopped: it spent more than its ${spec.maxTokens} tokens`;
  return 'stopped: killed';
}

function clip(text: string): string {
  return text.length > SUBAGENT_RESULT_MAX_CHARS
    ? `${text.slice(0, SUBAGENT_RESULT_MAX_CHARS)}… (cut at ${SUBAGENT_RESULT_MAX_CHARS} characters)`
    : text;
}
