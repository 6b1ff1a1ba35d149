import { readFile } from 'node:fs/promises';
import { parse as parseYaml } from 'yaml';
import { z } from 'zod';
import { FakeLlmScriptError } from './fake-llm-script-error.js';

const DELAY_MS = z.number().int().nonnegative();

const regexSource = z.string().refine(
  (source) => {
    try {
      new RegExp(source);
      return true;
    } catch {
      return false;
    }
  },
  { error: 'not a valid regular expression' },
);

const matchSchema = z.strictObject({
  last_message: z.string().optional(),
  last_message_regex: regexSource.optional(),
  model: z.string().optional(),
  tool_result: z.string().optional(),
  role: z.string().optional(),
});

const toolCallSchema = z.strictObject({
  name: z.string().min(1),
  arguments: z.union([z.record(z.string(), z.unknown()), z.string()]).default({}),
  id: z.string().min(1).optional(),
});

const usageSchema = z.strictObject({
  prompt_tokens: z.number().int().nonnegative().optional(),
  completion_tokens: z.number().int().nonnegative().optional(),
  /** Prompt tokens read from the provider's prompt cache (part of prompt_tokens). */
  cached_tokens: z.number().int().nonnegative().optional(),
});

const replySchema = z
  .strictObject({
    text: z.string().optional(),
    chunks: z.array(z.string()).min(1).optional(),
    tool_calls: z.array(toolCallSchema).min(1).optional(),
    usage: usageSchema.optional(),
    delay_ms: DELAY_MS.optional(),
    chunk_delay_ms: DELAY_MS.optional(),
  })
  .check((ctx) => {
    const reply = ctx.value;
    if (reply.text === undefined && reply.chunks === undefined && reply.tool_calls === undefined) {
      ctx.issues.push({ code: 'custom', input: reply, message: 'give text, chunks or tool_calls' });
    }
    if (reply.text !== undefined && reply.chunks !== undefined) {
      ctx.issues.push({ code: 'custom', input: reply, message: 'give either text or chunks, not both' });
    }
  });

const failSchema = z
  .strictObject({
    status: z.number().int().min(400).max(599).optional(),
    message: z.string().optional(),
    type: z.string().optional(),
    code: z.string().optional(),
    delay_ms: DELAY_MS.optional(),
    /** Sent as the Retry-After header (seconds), as providers do with 429. */
    retry_after_s: z.number().nonnegative().optional(),
    disconnect_after_chunks: z.number().int().nonnegative().optional(),
  })
  .check((ctx) => {
    const fail = ctx.value;
    if (fail.disconnect_after_chunks !== undefined && fail.status !== undefined) {
      ctx.issues.push({
        code: 'custom',
        input: fail,
        message: 'give either status or disconnect_after_chunks, not both',
      });
    }
  });

const ruleSchema = z
  .strictObject({
    match: matchSchema.default({}),
    times: z.number().int().positive().optional(),
    reply: replySchema.optional(),
    fail: failSchema.optional(),
  })
  .check((ctx) => {
    const rule = ctx.value;
    if (rule.reply === undefined && rule.fail === undefined) {
      ctx.issues.push({ code: 'custom', input: rule, message: 'give reply or fail' });
    }
    if (
      rule.reply !== undefined &&
      rule.fail !== undefined &&
      rule.fail.disconnect_after_chunks === undefined
    ) {
      ctx.issues.push({
        code: 'custom',
        input: rule,
        message: 'give reply or fail, not both (a reply goes with fail only to feed disconnect_after_chunks)',
      });
    }
  });

const DEFAULT_MODELS = ['gpt-test', 'gpt-test-mini'];

/** Zod schema of a fake-llm script (the YAML/JSON document, or an object of the same shape). */
export const fakeLlmScriptSchema = z.strictObject({
  models: z.array(z.string().min(1)).min(1).default(DEFAULT_MODELS),
  rules: z.array(ruleSchema).default([]),
  default: replySchema.optional(),
});

/** A validated fake-llm script, defaults applied. */
export type FakeLlmScript = z.output<typeof fakeLlmScriptSchema>;
/** What a script author writes: optional fields may be left out. */
export type FakeLlmScriptInput = z.input<typeof fakeLlmScriptSchema>;
export type FakeLlmRule = z.output<typeof ruleSchema>;
export type FakeLlmMatch = z.output<typeof matchSchema>;
export type FakeLlmReply = z.output<typeof replySchema>;
export type FakeLlmFail = z.output<typeof failSchema>;
export type FakeLlmToolCall = z.output<typeof toolCallSchema>;

/** Formats a zod issue path the way a script author reads it: `rules[2].reply`. */
function formatPath(path: readonly PropertyKey[]): string {
  let formatted = '';
  for (const key of path) {
    formatted += typeof key === 'number' ? `[${key}]` : `${formatted === '' ? '' : '.'}${String(key)}`;
  }
  return formatted === '' ? '(script)' : formatted;
}

/**
 * Validates a script given as YAML text (a string) or as an already-parsed object.
 *
 * @throws FakeLlmScriptError naming every invalid field.
 * @example
 * const script = parseFakeLlmScript('rules:\n  - match: { last_message: hi }\n    reply: { text: hello }');
 */
export function parseFakeLlmScript(input: unknown, source = 'inline'): FakeLlmScript {
  let document: unknown = input;
  if (typeof input === 'string') {
    try {
      document = parseYaml(input);
    } catch (error) {
      const reason = error instanceof Error ? error.message : String(error);
      throw new FakeLlmScriptError(source, [`not valid YAML: ${reason}`], { cause: error });
    }
  }
  const result = fakeLlmScriptSchema.safeParse(document ?? {});
  if (!result.success) {
    const issues = result.error.issues.map((issue) => `${formatPath(issue.path)}: ${issue.message}`);
    throw new FakeLlmScriptError(source, issues, { cause: result.error });
  }
  return result.data;
}

/**
 * Reads and validates a script file (YAML or JSON).
 *
 * @throws FakeLlmScriptError when the file is missing, unparsable or invalid.
 */
export async function loadFakeLlmScript(file: string): Promise<FakeLlmScript> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    throw new FakeLlmScriptError(file, [`cannot read file: ${reason}`], { cause: error });
  }
  return parseFakeLlmScript(text, file);
}
