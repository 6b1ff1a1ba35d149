import { AsyncLocalStorage } from 'node:async_hooks';
import { SUBAGENT_HEADER, TRACE_HEADER } from '@openlegion/protocol';

/**
 * Which subagent the running code works for: set around a child's turn, so everything the turn
 * awaits (its LLM calls, its tools' host calls, its own spawns) sees it without being handed it.
 */
const current = new AsyncLocalStorage<string>();

/** The chain of subagent ids from the agent down (`sub-a/sub-b`); undefined in the agent's own turns. */
export function currentSubagentPath(): string | undefined {
  return current.getStore();
}

/** Run `work` as the subagent at `path`. */
export function runAsSubagent<T>(path: string, work: () => T): T {
  return current.run(path, work);
}

/**
 * The headers that put a call into its trace: the trace id and, from a subagent, its path
 * ({@link SUBAGENT_HEADER}), so `openlegion traces ID` shows the subagent tree.
 */
export function traceHeaders(traceId: string | undefined): Record<string, string> {
  const path = currentSubagentPath();
  return {
    ...(traceId ? { [TRACE_HEADER]: traceId } : {}),
    ...(traceId && path ? { [SUBAGENT_HEADER]: path } : {}),
  };
}
