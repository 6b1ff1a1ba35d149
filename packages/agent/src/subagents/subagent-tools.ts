import { formatSquadMemory, SESSION_MEMORY_INSTRUCTION } from '@openlegion/memory';
import type { AgentTool } from '@openlegion/protocol';
import { z } from 'zod';
import { guardTool, ToolFailure } from '../tools/tool-failure.js';
import type { SquadMemoryClient } from './squad-memory-client.js';
import { answerOf, describeRun } from './subagent-answer.js';
import type { SubagentManager, SubagentRecord } from './subagent-manager.js';

/** Defaults a spawn takes when the model names none: enough for a focused piece of work. */
export const SUBAGENT_DEFAULT_TIMEOUT_S = 300;
export const SUBAGENT_DEFAULT_MAX_TOKENS = 60_000;
const PROFILES = ['minimal', 'coding', 'messaging', 'full'] as const;
/** The subagent tools' names: a child gets its own set, bound to its depth, never its parent's. */
export const SUBAGENT_TOOL_NAMES: ReadonlySet<string> = new Set([
  'spawn_subagent',
  'subagents_list',
  'subagent_result',
  'subagent_kill',
]);

const spawnInput = z.object({
  task: z
    .string()
    .min(1)
    .max(20_000)
    .describe('The whole task, complete in itself: the subagent sees nothing else'),
  role: z.string().max(200).default('a focused helper').describe('Who it is, e.g. "a careful fact checker"'),
  tools: z
    .union([z.enum(PROFILES), z.array(z.string().min(1)).max(64)])
    .default('minimal')
    .describe('A tool profile (minimal, coding, messaging, full) or tool names; never more than yours'),
  timeout_s: z
    .number()
    .int()
    .min(10)
    .max(1_800)
    .default(SUBAGENT_DEFAULT_TIMEOUT_S)
    .describe('Seconds it may run'),
  max_tokens: z
    .number()
    .int()
    .min(1_000)
    .max(1_000_000)
    .default(SUBAGENT_DEFAULT_MAX_TOKENS)
    .describe('Tokens (prompt and answer, all its calls) it may spend; charged to your budget'),
  squad: z
    .string()
    .regex(/^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/)
    .optional()
    .describe(
      'A squad whose memory it starts with and adds its lessons to (needs permissions.memory on squad:NAME)',
    ),
});
const idInput = z.object({ id: z.string().min(1).max(64).describe('The subagent id from spawn_subagent') });
const resultInput = z.object({
  id: z
    .string()
    .min(1)
    .max(64)
    .optional()
    .describe('One subagent; leave out to wait for all running ones and get every answer not collected yet'),
  wait_s: z
    .number()
    .int()
    .min(0)
    .max(1_800)
    .default(120)
    .describe('Seconds to wait for it (or them) to finish'),
});

/**
 * `spawn_subagent`, `subagents_list`, `subagent_result`, `subagent_kill` for an agent (or a
 * subagent) at `depth`; a subagent's answer comes back fenced: it read what its task led it to.
 */
export function createSubagentTools(
  manager: SubagentManager,
  depth: number,
  squads?: SquadMemoryClient,
): AgentTool[] {
  const spawn: AgentTool<z.infer<typeof spawnInput>> = {
    name: 'spawn_subagent',
    group: 'runtime',
    description:
      'Start a subagent on a self-contained task in the background (its own context and workspace folder); collect its answer with subagent_result. Several can run at once.',
    input: spawnInput,
    run: (input, context) =>
      guardTool(async () => {
        let prompt: string | undefined;
        let squadNote = '';
        if (input.squad !== undefined) {
          if (!squads) throw new ToolFailure('squad memory needs the host; this agent has none');
          // Read first: a squad the agent may not read is refused here, with the line to add.
          const memory = formatSquadMemory(
            input.squad,
            await squads.read(input.squad, context.traceId),
            input,
          );
          prompt = [memory.text, SESSION_MEMORY_INSTRUCTION, input.task].filter(Boolean).join('\n\n');
          squadNote = `; squad ${input.squad} memory: ${memory.tokens} tokens${memory.leftOut > 0 ? ` (${memory.leftOut} entries over budget left out)` : ''}`;
        }
        const record = manager.spawn({
          task: input.task,
          ...(prompt !== undefined ? { prompt } : {}),
          ...(input.squad !== undefined ? { squad: input.squad } : {}),
          role: input.role,
          tools: input.tools,
          timeoutMs: input.timeout_s * 1000,
          maxTokens: input.max_tokens,
          parentDepth: depth,
          traceId: context.traceId,
          parentConversation: context.conversationId,
        });
        return `started ${record.id} (depth ${record.depth}${squadNote}); collect its answer with subagent_result`;
      }),
  };
  const list: AgentTool<Record<string, never>> = {
    name: 'subagents_list',
    group: 'runtime',
    description: 'List your subagents: id, state, tokens spent, task.',
    input: z.object({}),
    run: () =>
      guardTool(async () => {
        const records = manager.list();
        if (records.length === 0) return 'no subagents';
        return records.map(describeRun).join('\n');
      }),
  };
  const result: AgentTool<z.infer<typeof resultInput>> = {
    name: 'subagent_result',
    group: 'runtime',
    description:
      "Wait (up to wait_s) for a subagent to finish and return its answer, or say it's still running.",
    input: resultInput,
    run: (input, context) =>
      guardTool(async () => {
        if (input.id === undefined) {
          const { ended, running } = await manager.collect(input.wait_s * 1000, context.signal);
          const still = running > 0 ? `\n${running} still running; ask again later` : '';
          if (ended.length === 0) return `no answers yet${still || ' (no subagents)'}`;
          return `${ended.map(answerOf).join('\n\n')}${still}`;
        }
        const record = await manager.result(input.id, input.wait_s * 1000, context.signal);
        if (record.state === 'running')
          return `${record.id} is still running (${record.tokens} tokens so far); ask again later`;
        return alreadySent(record) ?? answerOf(record);
      }),
  };
  const kill: AgentTool<z.infer<typeof idInput>> = {
    name: 'subagent_kill',
    group: 'runtime',
    description: 'Stop a running subagent.',
    input: idInput,
    run: (input) =>
      guardTool(async () => {
        const record = manager.kill(input.id);
        return record.state === 'running'
          ? `stopping ${record.id}`
          : `${record.id} had already ended (${record.state})`;
      }),
  };
  return [spawn, list, result, kill] as AgentTool[];
}

/** A run whose answer went (or is going) to the agent's lane as a message: said, not repeated. */
function alreadySent(record: SubagentRecord): string | undefined {
  if (record.deliveredAt !== undefined)
    return `${record.id} ${record.state}: its answer was already delivered to you as a message (at ${new Date(record.deliveredAt).toISOString()}), after the turn that spawned it ended; look for "Your subagent ${record.id} ended" in this conversation`;
  if (record.sending)
    return `${record.id} ${record.state}: its answer is on its way to you as a message (the turn that spawned it ended before collecting it)`;
  return undefined;
}
