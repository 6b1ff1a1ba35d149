import type { MemoryEngine } from '@openlegion/memory';
import { createMemoryTools } from '@openlegion/memory';
import type { AgentTool } from '@openlegion/protocol';

export interface AgentToolsDeps {
  /** The memory engine, opened on first use. */
  memory: () => MemoryEngine;
}

/**
 * Every tool this agent registers, before mesh.yaml `tools` filters them. The one place the list
 * is built: core tools (files, commands, processes, http, web, mesh) and the browser's join here.
 */
export function createAgentTools(deps: AgentToolsDeps): AgentTool[] {
  const { memorySearch, memorySave } = createMemoryTools({ memory: deps.memory, hierarchical: true });
  return [memorySearch, memorySave] as AgentTool[];
}
