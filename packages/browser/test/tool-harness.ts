import type { AgentTool, ToolResult } from '@openlegion/protocol';

/** Call a tool by name the way the agent loop does: parse the input, run, collect the text. */
export async function callTool(
  tools: AgentTool[],
  name: string,
  input: unknown,
  workspace: string,
): Promise<{ text: string; result: ToolResult }> {
  const tool = tools.find((candidate) => candidate.name === name);
  if (!tool) throw new Error(`no tool ${name}`);
  const result = await tool.run(tool.input.parse(input), { workspace, signal: new AbortController().signal });
  const text = result.content
    .map((part) => (part.type === 'text' ? part.text : `[image ${part.mimeType}]`))
    .join('\n');
  return { text, result };
}

/** The ref printed on the line that matches `pattern` (e.g. /textbox "User"/). */
export function refOf(snapshot: string, pattern: RegExp): string {
  const line = snapshot.split('\n').find((candidate) => pattern.test(candidate));
  const ref = line ? /\[(e\d+)\]/.exec(line)?.[1] : undefined;
  if (!ref) throw new Error(`no ref for ${pattern} in:\n${snapshot}`);
  return ref;
}
