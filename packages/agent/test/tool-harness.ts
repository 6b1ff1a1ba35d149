import { mkdtempSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { AgentTool, ToolContext } from '@openlegion/protocol';

/** A fresh temporary folder (real path) and a way to remove it. */
export function makeTempDir(prefix = 'ol-tools-'): { dir: string; remove(): void } {
  const dir = realpathSync(mkdtempSync(path.join(tmpdir(), prefix)));
  return { dir, remove: () => rmSync(dir, { recursive: true, force: true }) };
}

/** The tool named `name` among `tools`. */
export function toolNamed(tools: AgentTool[], name: string): AgentTool {
  const tool = tools.find((candidate) => candidate.name === name);
  if (!tool) throw new Error(`no tool ${name}`);
  return tool;
}

/**
 * Call a tool as the loop does: arguments parsed with its zod schema first, then `run`. Returns the
 * text of its result and whether it is an error.
 */
export async function callTool(
  tool: AgentTool,
  args: unknown,
  context: Partial<ToolContext> & { workspace: string },
): Promise<{ text: string; isError: boolean }> {
  const input = tool.input.parse(args);
  const result = await tool.run(input, { signal: new AbortController().signal, ...context });
  const text = result.content
    .map((part) => (part.type === 'text' ? part.text : `[image ${part.mimeType}]`))
    .join('\n');
  return { text, isError: result.isError === true };
}
