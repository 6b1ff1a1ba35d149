import type { AgentLoop } from '../loop/agent-loop.js';
import { HEARTBEAT_CONVERSATION_ID } from '../loop/agent-loop.js';

/** What the wrapper tells the subagent manager. */
export interface ParentTurns {
  turnStarted(conversationId: string): void;
  turnEnded(conversationId: string): void;
}

/**
 * The agent's loop, telling `turns` when each of its turns starts and ends: a subagent's answer
 * waits for the turn that spawned it to collect it, and goes out as a message once it has ended.
 */
export function withParentTurns(loop: AgentLoop, turns: ParentTurns): AgentLoop {
  const around = async <T>(conversationId: string, run: () => Promise<T>): Promise<T> => {
    turns.turnStarted(conversationId);
    try {
      return await run();
    } finally {
      turns.turnEnded(conversationId);
    }
  };
  return {
    runChat: (turn, emit, signal) => around(turn.conversationId, () => loop.runChat(turn, emit, signal)),
    runTask: (task, emit, signal) => around(task.conversationId, () => loop.runTask(task, emit, signal)),
    runHeartbeat: (beat, signal, emit) =>
      around(HEARTBEAT_CONVERSATION_ID, () => loop.runHeartbeat(beat, signal, emit)),
  };
}
