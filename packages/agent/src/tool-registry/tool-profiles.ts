import type { AgentTool, ToolGroup } from '@openlegion/protocol';

export type ToolProfile = 'minimal' | 'coding' | 'messaging' | 'full';

/**
 * Profiles as unions of tool groups (seed 002): `minimal` keeps the agent to its own memory (no
 * action on files, processes, the web or other agents); `coding` adds files and commands;
 * `messaging` adds the mesh and the web; `full` is everything. Every profile but `minimal` keeps
 * `mcp`: the operator granted those servers by name, so a profile directive should not hide them;
 * `minimal` promises no action outside the agent's memory, which an MCP tool may well take.
 * `skills` (`skill_view`, which only reads) comes with every profile that can act on what a skill says.
 */
export const TOOL_PROFILE_GROUPS: Readonly<Record<ToolProfile, readonly ToolGroup[]>> = {
  minimal: ['memory'],
  coding: ['memory', 'files', 'runtime', 'mcp', 'skills'],
  messaging: ['memory', 'mesh', 'web', 'mcp', 'skills'],
  full: ['memory', 'files', 'runtime', 'web', 'mesh', 'browser', 'mcp', 'skills'],
};

export function isToolProfile(value: string): value is ToolProfile {
  return Object.hasOwn(TOOL_PROFILE_GROUPS, value);
}

/** The tools an agent may use, and the names in its list that match no tool. */
export interface ToolSelection {
  tools: AgentTool[];
  unknown: string[];
}

/**
 * Apply mesh.yaml `tools` (a profile or a list of tool names) to the registered tools. A string
 * that is not a profile is read as a one-name list, so a typo shows up as an unknown name.
 */
export function selectTools(
  setting: string | readonly string[],
  registered: readonly AgentTool[],
): ToolSelection {
  if (typeof setting === 'string' && isToolProfile(setting)) {
    return { tools: filterByProfile(registered, setting), unknown: [] };
  }
  const names = typeof setting === 'string' ? [setting] : setting;
  const known = new Set(registered.map((tool) => tool.name));
  return {
    tools: registered.filter((tool) => names.includes(tool.name)),
    unknown: names.filter((name) => !known.has(name)),
  };
}

/** The tools of `tools` whose group the profile includes. */
export function filterByProfile(tools: readonly AgentTool[], profile: ToolProfile): AgentTool[] {
  const groups = TOOL_PROFILE_GROUPS[profile];
  return tools.filter((tool) => groups.includes(tool.group));
}
