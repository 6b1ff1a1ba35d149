import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { captureSession } from '@openlegion/memory';
import type { ChatEvent } from '@openlegion/protocol';
import type { Logger } from 'pino';
import type { SquadMemoryClient } from './squad-memory-client.js';
import { stoppedBecause } from './subagent-answer.js';
import { runAsSubagent } from './subagent-context.js';
import { type ProgressJournal, resumeNote } from './subagent-progress.js';
import type { SubagentStore } from './subagent-store.js';
import type { ChildLoopFactory, SubagentRecord, SubagentSpec, SubagentState } from './subagent-types.js';

/** What becomes of a run found `running` at start: ended (and why), or run again for what is left of its timeout. */
export type RestartVerdict = { end: SubagentState; reason: string } | { rerunForMs: number };

/**
 * A run the agent (its container, or the host) died under: only the agent's own children run
 * again (deeper ones are their parent's to spawn anew), within the timeout counted from the first
 * start, and `maxRestarts` times at most.
 */
export function restartVerdict(
  record: SubagentRecord,
  spec: SubagentSpec,
  now: number,
  maxRestarts: number,
): RestartVerdict {
  const elapsed = now - record.startedAt;
  if (record.depth > 1)
    return {
      end: 'failed',
      reason: 'stopped: the agent restarted while it ran (only the agent’s own subagents are run again)',
    };
  if (elapsed >= spec.timeoutMs)
    return {
      end: 'timed_out',
      reason: `${stoppedBecause('timed_out', spec)} (counted from its first start; the agent restarted meanwhile)`,
    };
  if (record.restarts >= maxRestarts)
    return {
      end: 'failed',
      reason: `stopped: the agent restarted while it ran, ${record.restarts + 1} times (a subagent is run again ${maxRestarts} times at most)`,
    };
  return { rerunForMs: spec.timeoutMs - elapsed };
}

/**
 * One run of a child loop in its workspace folder: its answer, or what went wrong. Its tokens are
 * counted as they come (past its budget the run is aborted) and its finished tool calls journalled;
 * a re-run is told first what it had done.
 */
export async function attemptChild(run: {
  record: SubagentRecord;
  spec: SubagentSpec;
  controller: AbortController;
  childLoop: ChildLoopFactory;
  /** The agent's workspace; the child's is `subagents/<id>` in it. */
  workspace: string;
  store: SubagentStore;
  journal: ProgressJournal;
  /** The chain of ids from the agent down, sent with its calls so traces nest. */
  path: string;
}): Promise<{ answer?: string; failure?: string }> {
  const { record, spec, controller, store, journal } = run;
  const workspace = join(run.workspace, 'subagents', record.id);
  mkdirSync(workspace, { recursive: true });
  const loop = run.childLoop({ depth: record.depth, role: spec.role, tools: spec.tools, workspace });
  let answer: string | undefined;
  let failure: string | undefined;
  const emit = (event: ChatEvent) => {
    if (event.type === 'usage') {
      record.tokens += event.prompt_tokens + event.completion_tokens;
      store.setTokens(record.id, record.tokens);
      if (record.tokens > spec.maxTokens) controller.abort('over_budget');
    } else if (event.type === 'done') answer = event.text;
    else if (event.type === 'error') failure = `${event.code}: ${event.message}`;
    else if (journal.record(event)) store.setProgress(record.id, journal.steps);
  };
  const message = spec.prompt ?? spec.task;
  try {
    await runAsSubagent(run.path, () =>
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

/** The child's `## Session Memory` into its squad's memory; a failure is reported, not thrown. */
export async function captureLessons(
  squads: SquadMemoryClient,
  squad: string,
  run: { record: SubagentRecord; answer: string; spec: SubagentSpec },
  logger: Logger,
): Promise<NonNullable<SubagentRecord['captured']>> {
  try {
    const done = await captureSession(squads, squad, {
      id: run.record.id,
      answer: run.answer,
      traceId: run.spec.traceId,
    });
    return { lessons: done.captured, distilled: done.distilled };
  } catch (error) {
    logger.warn({ err: error, squad, subagent: run.record.id }, 'squad memory capture failed');
    return { lessons: 0, distilled: 0, error: error instanceof Error ? error.message : String(error) };
  }
}

/** Until one of `pending` settles, `waitMs` passes or `signal` aborts. */
export async function waitForAny(
  pending: Promise<unknown>[],
  waitMs: number,
  signal?: AbortSignal,
): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const gaveUp = new Promise<void>((resolve) => {
    timer = setTimeout(resolve, waitMs);
    signal?.addEventListener('abort', () => resolve(), { once: true });
  });
  await Promise.race([Promise.all(pending), gaveUp]);
  clearTimeout(timer);
}
