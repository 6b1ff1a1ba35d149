import type { AgentRuntime } from '../agent-runtime.js';
import type { AgentLoop } from './agent-loop.js';

/**
 * An {@link AgentLoop} whose runtime is loaded at its first call (or earlier, by `load`). A turn
 * also waits for the runtime's `ready` (its MCP servers' first start), so it sees their tools.
 */
export function deferredLoop(loadRuntime: () => Promise<AgentRuntime>): AgentLoop {
  const load = async () => {
    const runtime = await loadRuntime();
    await runtime.ready;
    return runtime;
  };
  return {
    runChat: async (turn, emit, signal) => (await load()).loop.runChat(turn, emit, signal),
    runTask: async (task, emit, signal) => (await load()).loop.runTask(task, emit, signal),
    runHeartbeat: async (beat, signal, emit) => (await load()).loop.runHeartbeat(beat, signal, emit),
  };
}
