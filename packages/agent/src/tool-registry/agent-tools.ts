import { join } from 'node:path';
import { browserConfigFromSelf, createBrowserSession, createBrowserTools } from '@openlegion/browser';
import type { MemoryEngine } from '@openlegion/memory';
import { createMemoryTools } from '@openlegion/memory';
import type { AgentSelf, AgentTool } from '@openlegion/protocol';
import type OpenAI from 'openai';
import {
  createCoreTools,
  createMeshClient,
  createMeshTools,
  createScopedMemoryTools,
} from '../tools/index.js';

export interface AgentToolsDeps {
  /** The memory engine, opened on first use. */
  memory: () => MemoryEngine;
  /** The host (`MESH_URL`) and this agent's token, for the mesh tools and `http_request`. */
  mesh: { meshUrl: string; token: string };
  /** The agent's browser settings (`/mesh/self`); its profile lives in `<dataDir>/browser`. */
  browser: AgentSelf['browser'];
  dataDir: string;
  /** The host's LLM proxy, for tools that summarise long results on the fast tier. */
  llm?: () => Promise<OpenAI>;
}

/** The agent's tools and what must be released when it stops. */
export interface AgentTools {
  tools: AgentTool[];
  /** Kill background processes, close connections; once, at shutdown. */
  close(): Promise<void>;
}

/**
 * Every tool this agent registers, before mesh.yaml `tools` filters them. The one place the list
 * is built: core tools (files, commands, processes, http, web), mesh tools, memory, and the
 * browser's.
 */
export function createAgentTools(deps: AgentToolsDeps): AgentTools {
  const core = createCoreTools({ mesh: deps.mesh, ...(deps.llm ? { llm: deps.llm } : {}) });
  const memory = createScopedMemoryTools(
    createMemoryTools({ memory: deps.memory, hierarchical: true }),
    createMeshClient(deps.mesh),
  );
  // Launches nothing until the first browser tool call: an idle agent runs no Chromium.
  const browser = createBrowserSession(
    browserConfigFromSelf(deps.browser, { profileDir: join(deps.dataDir, 'browser') }),
  );
  return {
    tools: [
      ...core.tools,
      ...createMeshTools({ mesh: deps.mesh }),
      ...memory,
      ...createBrowserTools({ session: browser, evaluate: deps.browser.evaluate }),
    ] as AgentTool[],
    close: async () => {
      await Promise.all([core.close(), browser.close()]);
    },
  };
}
