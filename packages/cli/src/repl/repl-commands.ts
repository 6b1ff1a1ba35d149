import { cronJobsAnswerSchema, type LaneMode, laneItemsAnswerSchema } from '@openlegion/protocol';
import { printError } from '../cli-output.js';
import { approvalLine, fetchApprovals } from '../commands/approvals.js';
import { sendMessage } from '../commands/send.js';
import { fetchStatus, printStatus } from '../commands/status.js';
import { fetchSubagents, formatSubagents } from '../commands/subagents.js';
import { requestDone, requestJson } from '../host-connection.js';
import { formatRecallDebug } from './recall-debug.js';
import { conversationOf, knownAgent, type ReplSession } from './repl-session.js';

/** One slash command of the REPL. */
export interface ReplCommand {
  name: string;
  usage: string;
  description: string;
  run(session: ReplSession, args: string): Promise<void> | void;
}

/** Send `message` to `agent` in this session's conversation and keep it in the transcript. */
export async function say(
  session: ReplSession,
  agent: string,
  message: string,
  mode?: LaneMode,
): Promise<void> {
  // A steer sent while a turn streams is not a turn of its own: Ctrl-C still stops the running one.
  const turn = new AbortController();
  const ownsTurn = session.turn === undefined;
  if (ownsTurn) session.turn = turn;
  if (ownsTurn) session.recalls.delete(agent);
  try {
    const reply = await sendMessage(session.host, agent, message, session.output, {
      conversationId: conversationOf(session, agent),
      signal: turn.signal,
      ...(mode ? { mode } : {}),
      onEvent: (event) => {
        if (event.type === 'recall') session.recalls.set(agent, event);
      },
    });
    session.transcript.push({ agent, said: message, reply: reply.text });
  } catch (error) {
    if (turn.signal.aborted) session.output.err(`  · ${agent}: turn interrupted\n`);
    else printError(session.output, error);
  } finally {
    if (ownsTurn) session.turn = undefined;
  }
}

/** The first word of `text`, and what follows it. */
const firstWord = (text: string) => text.trim().split(/\s+/)[0] ?? '';
const rest = (text: string) => text.trim().replace(/^\S+\s*/, '');

async function refreshAgents(session: ReplSession): Promise<void> {
  session.agents = (await fetchStatus(session.host)).agents;
}

export const REPL_COMMANDS: ReplCommand[] = [
  {
    name: 'use',
    usage: '/use NAME',
    description: 'talk to another agent from now on',
    run(session, args) {
      const agent = knownAgent(session, args.trim());
      if (agent) session.current = agent;
    },
  },
  {
    name: 'agents',
    usage: '/agents',
    description: 'the agents and their states',
    async run(session) {
      await refreshAgents(session);
      for (const agent of session.agents) {
        session.output.out(
          `${agent.name === session.current ? '*' : ' '} ${agent.name}  ${agent.state}  ${agent.model}\n`,
        );
      }
    },
  },
  {
    name: 'status',
    usage: '/status',
    description: 'the mesh and its agents',
    async run(session) {
      printStatus(await fetchStatus(session.host), session.output);
    },
  },
  {
    name: 'broadcast',
    usage: '/broadcast TEXT',
    description: 'send the same message to every agent, one after the other',
    async run(session, args) {
      await refreshAgents(session);
      for (const agent of session.agents) {
        session.output.out(`── ${agent.name} ──\n`);
        await say(session, agent.name, args);
      }
    },
  },
  {
    name: 'steer',
    usage: '/steer NAME TEXT',
    description: "steer an agent's running turn (a normal message when it is idle)",
    async run(session, args) {
      const agent = knownAgent(session, firstWord(args));
      if (agent) await say(session, agent, rest(args), 'steer');
    },
  },
  {
    name: 'interrupt',
    usage: '/interrupt [NAME]',
    description: "end an agent's running turn",
    async run(session, args) {
      const agent = knownAgent(session, args.trim() || session.current);
      if (!agent) return;
      await requestDone(session.host, 'POST', `/api/agents/${encodeURIComponent(agent)}/interrupt`);
      session.output.out(`${agent}: interrupted\n`);
    },
  },
  {
    name: 'reset',
    usage: '/reset',
    description: 'start a new conversation with the current agent',
    run(session) {
      session.conversations.set(session.current, `repl-${Date.now().toString(36)}`);
      session.output.out(`${session.current}: new conversation\n`);
    },
  },
  {
    name: 'history',
    usage: '/history',
    description: 'what was said in this session',
    run(session) {
      for (const turn of session.transcript)
        session.output.out(`${turn.agent}< ${turn.said}\n${turn.agent}> ${turn.reply}\n`);
    },
  },
  {
    name: 'queue',
    usage: '/queue [NAME]',
    description: "an agent's lane: what runs and what waits",
    async run(session, args) {
      const agent = args.trim() || session.current;
      const { items } = await requestJson(
        session.host,
        'GET',
        `/api/lanes?agent=${encodeURIComponent(agent)}&limit=20`,
        laneItemsAnswerSchema,
      );
      if (items.length === 0) session.output.out(`${agent}: nothing queued or recent\n`);
      for (const item of items) {
        session.output.out(
          `#${item.id} ${item.state.padEnd(9)} ${item.mode.padEnd(9)} ${item.source.padEnd(8)} ${item.message.split('\n')[0]?.slice(0, 60)}\n`,
        );
      }
      // A running turn may be held by a tool call that waits for the operator: say so under it.
      const waiting = (await fetchApprovals(session.host).catch(() => [])).filter(
        (approval) => approval.kind === 'tool_call' && approval.agent === agent,
      );
      for (const approval of waiting) session.output.out(`  ${approvalLine(approval)}\n`);
    },
  },
  {
    name: 'cron',
    usage: '/cron list|pause ID|resume ID|run ID',
    description: 'scheduled jobs',
    async run(session, args) {
      const [action = 'list', id = ''] = args.trim().split(/\s+/);
      if (action === 'list') {
        const { jobs } = await requestJson(session.host, 'GET', '/api/cron', cronJobsAnswerSchema);
        for (const job of jobs)
          session.output.out(
            `${job.id}  "${job.schedule}"${job.paused ? ' [paused]' : ''}  ${job.lastResult ?? ''}\n`,
          );
        if (jobs.length === 0) session.output.out('no cron jobs\n');
      } else if (['pause', 'resume', 'run'].includes(action) && id) {
        await requestDone(session.host, 'POST', `/api/cron/${encodeURIComponent(id)}/${action}`);
        session.output.out(`${id}: ${action} done\n`);
      } else session.output.err('usage: /cron list|pause ID|resume ID|run ID\n');
    },
  },
  {
    name: 'compact',
    usage: '/compact',
    description: 'ask the current agent to compact its conversation now',
    run: (session) => say(session, session.current, '/compact'),
  },
  {
    name: 'model',
    usage: '/model [NAME|reset]',
    description:
      "the current agent's model for this conversation: show it, switch (fast, default, complex, provider/model) or reset",
    // The agent's own `/model` directive: it keeps the choice per conversation and says what it did.
    run: (session, args) => say(session, session.current, `/model ${args.trim()}`.trimEnd()),
  },
  {
    name: 'subagents',
    usage: '/subagents [NAME]',
    description: "an agent's subagents (the current agent's, or NAME's): depth, state, tokens, task",
    async run(session, args) {
      const agent = args.trim() === '' ? session.current : knownAgent(session, args.trim());
      if (agent) session.output.out(formatSubagents(agent, await fetchSubagents(session.host, agent)));
    },
  },
  {
    name: 'debug',
    usage: '/debug [NAME]',
    description: "what memory recall put into the last turn's prompt (the current agent's, or NAME's)",
    run(session, args) {
      const agent = args.trim() === '' ? session.current : knownAgent(session, args.trim());
      if (agent) session.output.out(formatRecallDebug(agent, session.recalls.get(agent)));
    },
  },
  {
    name: 'restart',
    usage: '/restart NAME',
    description: 'restart an agent (also one marked failed)',
    async run(session, args) {
      const agent = knownAgent(session, args.trim());
      if (!agent) return;
      session.output.out(`restarting ${agent}…\n`);
      await requestDone(session.host, 'POST', `/api/agents/${encodeURIComponent(agent)}/restart`);
      await refreshAgents(session);
      session.output.out(
        `${agent}: ${session.agents.find((info) => info.name === agent)?.state ?? 'unknown'}\n`,
      );
    },
  },
];
