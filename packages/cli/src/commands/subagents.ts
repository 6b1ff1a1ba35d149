import { type SubagentView, subagentsListSchema } from '@openlegion/protocol';
import type { Command } from 'commander';
import type { CommandKit } from '../command-kit.js';
import { connectToHost, type HostConnection, requestJson } from '../host-connection.js';

/** The task is shown on one line, this long at most. */
const TASK_CHARS = 60;

/** `openlegion subagents <agent>`: the agent's in-container subagents (REPL `/subagents` too). */
export function registerSubagentsCommand(program: Command, kit: CommandKit): void {
  program
    .command('subagents')
    .description("an agent's subagents: id, depth, state, tokens, times and task")
    .argument('<agent>', 'agent name')
    .addOption(kit.configOption())
    .action((agent: string, options: { config: string }) =>
      kit.run(async () => {
        const host = await connectToHost(options.config);
        kit.output.out(formatSubagents(agent, await fetchSubagents(host, agent)));
        return 0;
      })(),
    );
}

/** `GET /api/agents/NAME/subagents/`, which the host forwards to the agent. */
export async function fetchSubagents(host: HostConnection, agent: string): Promise<SubagentView[]> {
  const route = `/api/agents/${encodeURIComponent(agent)}/subagents/`;
  return (await requestJson(host, 'GET', route, subagentsListSchema)).subagents;
}

/** One line a subagent, indented by depth so the tree shows; a line saying so when there are none. */
export function formatSubagents(agent: string, subagents: readonly SubagentView[]): string {
  if (subagents.length === 0) return `${agent}: no subagents since it started\n`;
  return subagents
    .map((sub) => {
      const ended = sub.ended_at === null ? 'running' : `ended ${clock(sub.ended_at)}`;
      return `${'  '.repeat(sub.depth - 1)}${sub.id}  depth ${sub.depth}  ${sub.state}  ${sub.tokens} tokens  started ${clock(sub.started_at)}, ${ended}  ${oneLine(sub.role)}: ${oneLine(sub.task)}\n`;
    })
    .join('');
}

/** `HH:MM:SS` (UTC) of an ISO time. */
function clock(iso: string): string {
  return iso.slice(11, 19);
}

/** Control, zero-width and bidi characters: the agent wrote the task, and it reaches a terminal. */
// biome-ignore lint/suspicious/noControlCharactersInRegex: these are what is removed
const UNPRINTABLE = /[\u0000-\u001f\u007f-\u009f\u200b-\u200f\u202a-\u202e\u2066-\u2069]+/g;

/** One line (unprintable runs become a space), clipped to {@link TASK_CHARS}. */
function oneLine(text: string): string {
  const flat = text.replace(UNPRINTABLE, ' ').trim();
  return flat.length > TASK_CHARS ? `${flat.slice(0, TASK_CHARS - 1)}…` : flat;
}
