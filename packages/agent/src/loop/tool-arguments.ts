import type { AgentTool } from '@openlegion/protocol';
import { z } from 'zod';
import type { LlmToolDefinition } from './llm-stream.js';

/** Arguments as JSON, or why they are not. `{}` for an empty string (some models send that). */
export function parseArgumentsJson(
  text: string,
): { ok: true; value: unknown } | { ok: false; error: string } {
  if (text.trim() === '') return { ok: true, value: {} };
  try {
    return { ok: true, value: JSON.parse(text) };
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    return { ok: false, error: `the arguments are not valid JSON (${reason}); send one JSON object` };
  }
}

/** The model's arguments checked against the tool's schema; the error names every bad field. */
export function validateArguments(
  tool: AgentTool,
  value: unknown,
): { ok: true; input: unknown } | { ok: false; error: string } {
  const parsed = tool.input.safeParse(value);
  if (parsed.success) return { ok: true, input: parsed.data };
  const problems = parsed.error.issues.map((issue) => {
    const field = issue.path.map(String).join('.');
    return field === '' ? issue.message : `field "${field}": ${issue.message}`;
  });
  return { ok: false, error: `invalid arguments for ${tool.name}: ${problems.join('; ')}` };
}

const definitions = new WeakMap<AgentTool, LlmToolDefinition>();

/** The tool as the model sees it: name, description and the JSON Schema of its input. */
export function toolDefinition(tool: AgentTool): LlmToolDefinition {
  let definition = definitions.get(tool);
  if (definition === undefined) {
    // An MCP tool brings its own JSON Schema (already checked by the MCP client).
    const { $schema: _schema, ...parameters } = (tool.parameters ??
      z.toJSONSchema(tool.input, { io: 'input', unrepresentable: 'any' })) as Record<string, unknown>;
    definition = {
      type: 'function',
      function: { name: tool.name, description: tool.description, parameters },
    };
    definitions.set(tool, definition);
  }
  return definition;
}
