import type { AgentLoop } from '../loop/agent-loop.js';

/** What a subagent is spawned with (persisted: a re-run after a restart needs it). */
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
