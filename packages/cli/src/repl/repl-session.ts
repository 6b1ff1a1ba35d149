import type { AgentInfo } from '@openlegion/protocol';
import type { CliOutput } from '../cli-output.js';
import type { HostConnection } from '../host-connection.js';
import type { RecallReport } from './recall-debug.js';

/** What one REPL run knows: the host, the agents, who it talks to, and its own exchanges. */
export interface ReplSession {
  host: HostConnection;
  output: CliOutput;
  agents: AgentInfo[];
  current: string;
  /** Conversation id per agent; `/reset` starts a new one. */
  conversations: Map<string, string>;
  /** What was said in this session, for `/history`. */
  transcript: Array<{ agent: string; said: string; reply: string }>;
  /** Approvals already shown (`run/step`), so each is offered once. */
  offeredApprovals: Set<string>;
  /** Per agent, what automatic recall put into its last turn's prompt (`/debug`). */
  recalls: Map<string, RecallReport>;
  /** Aborts the turn in flight (Ctrl-C). */
  turn: AbortController | undefined;
}

/** The agent of that name, or an error line that lists the agents; undefined when unknown. */
export function knownAgent(session: ReplSession, name: string): string | undefined {
  if (session.agents.some((agent) => agent.name === name)) return name;
  session.output.err(`no agent "${name}"; agents: ${session.agents.map((agent) => agent.name).join(', ')}\n`);
  return undefined;
}

export function conversationOf(session: ReplSession, agent: string): string {
  return session.conversations.get(agent) ?? 'default';
}
