import {
  type AgentTool,
  isOpenLegionError,
  OpenLegionError,
  type ToolContext,
  textResult,
} from '@openlegion/protocol';
import { z } from 'zod';
import { LCM_PATTERN_MAX_CHARS, lcmDescribe, lcmExpand, lcmGrep } from './lcm-queries.js';
import type { SummaryStore } from './summary-store.js';

/** A summary id as the prompt shows it (`S12`) or bare (`12`). */
const summaryId = z
  .union([z.number().int().positive(), z.string().regex(/^[Ss]?\d{1,12}$/)])
  .transform((value) => (typeof value === 'number' ? value : Number(value.replace(/^[Ss]/, ''))))
  .describe('A summary id, e.g. S12');

const grepInput = z.object({
  pattern: z
    .string()
    .max(LCM_PATTERN_MAX_CHARS)
    .describe('Words to look for (all must occur; matched literally, case-insensitive)'),
  limit: z.number().int().min(1).max(50).default(10).describe('Most hits of each kind'),
  conversation: z
    .string()
    .min(1)
    .max(200)
    .optional()
    .describe('Only this conversation id (default: this one)'),
});

const describeInput = z.object({ id: summaryId });

const expandInput = z.object({
  id: summaryId.optional(),
  conversation: z
    .string()
    .min(1)
    .max(200)
    .optional()
    .describe('Expand this conversation (with from) instead of a summary'),
  from: z.number().int().min(1).optional().describe('First message number (#) to show; to page on'),
});

/**
 * `lcm_grep`, `lcm_describe` and `lcm_expand`: the agent's way back into its own conversation
 * history under the `lossless` strategy. Each answer is capped in tokens; bad input comes back as
 * an error result the model can correct.
 */
export function createLcmTools(store: () => SummaryStore): AgentTool[] {
  const grep: AgentTool<z.infer<typeof grepInput>> = {
    name: 'lcm_grep',
    group: 'memory',
    description:
      'Search every message of your conversations and their summaries (older turns leave the prompt but are kept).',
    input: grepInput,
    run: async (input, context) =>
      asToolResult(() =>
        lcmGrep(store(), {
          pattern: input.pattern,
          limit: input.limit,
          conversationId: ownConversation(context, input.conversation),
        }),
      ),
  };
  const describe: AgentTool<z.infer<typeof describeInput>> = {
    name: 'lcm_describe',
    group: 'memory',
    description: "A context summary's span of messages, depth, parent and children, and its text.",
    input: describeInput,
    run: async (input, context) => asToolResult(() => lcmDescribe(store(), input.id, context.conversationId)),
  };
  const expand: AgentTool<z.infer<typeof expandInput>> = {
    name: 'lcm_expand',
    group: 'memory',
    description:
      'The original messages a context summary stands for (or a conversation from message `from`), paged.',
    input: expandInput,
    run: async (input, context) =>
      asToolResult(() =>
        lcmExpand(store(), {
          id: input.id,
          conversationId: ownConversation(context, input.conversation),
          from: input.from,
          ...(context.conversationId ? { onlyConversation: context.conversationId } : {}),
        }),
      ),
  };
  return [grep, describe, expand] as AgentTool[];
}

/**
 * In a turn the tools read only that turn's conversation: an agent serving several people must not
 * show one person another's messages. Outside a turn (tests, tools run directly) `conversation` applies.
 */
function ownConversation(context: ToolContext, asked: string | undefined): string | undefined {
  if (!context.conversationId) return asked;
  if (asked !== undefined && asked !== context.conversationId) {
    throw new OpenLegionError(
      'REQUEST_INVALID',
      'the lcm tools read only this conversation; leave conversation out',
    );
  }
  return context.conversationId;
}

function asToolResult(work: () => string) {
  try {
    return textResult(work());
  } catch (error) {
    if (isOpenLegionError(error)) return textResult(`${error.code}: ${error.message}`, true);
    throw error;
  }
}
