import type { AgentRuntime } from '../agent-runtime.js';
import type { AgentLoop } from './agent-loop.js';

/** An {@link AgentLoop} whose runtime is loaded at its first call (or earlier, by `load`). */
export function deferredLoop(load: () => Promise<AgentRuntime>): AgentLoop {
  return {
    runChat: async (turn, emit, signal) => (await load()).loop.runChat(turn, emit, signal),
    runTask: async (task, emit, signal) => (await load()).loop.runTask(task, emit, signal),
    runHeartbeat: async (beat, signal, emit) => (await load()).loop.runHeartbeat(beat, signal, emit),
  };
}
