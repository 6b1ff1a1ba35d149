import { join } from 'node:path';
import { openDatabase } from '@openlegion/infra/sqlite';
import type { MemoryEngine } from '@openlegion/memory';
import type { AgentSelf } from '@openlegion/protocol';
import type OpenAI from 'openai';
import type { Logger } from 'pino';
import { createContextManager } from './context/create-context-manager.js';
import { createLcmTools, SummaryStore } from './context/lossless/index.js';
import type { ConversationStore } from './conversation-store.js';
import { createHostClient } from './host-client.js';
import { type AgentLoop, createAgentLoop } from './loop/agent-loop.js';
import { createMemoryRecall, meshSharedRecall, withRecallViews } from './memory-recall/index.js';
import { createSkillViewTool, type SkillSnapshot } from './skills/index.js';
import { createAgentTools } from './tool-registry/agent-tools.js';
import { selectTools } from './tool-registry/tool-profiles.js';
import { createMeshClient } from './tools/index.js';
import { hostInstructions } from './workspace/operator-instructions.js';

/** Waits before retrying `GET /mesh/instructions` in a turn: short, the turn's LLM call needs the host too. */
const INSTRUCTIONS_RETRY_DELAYS_MS: readonly number[] = [100, 500];

/** What answers turns: the loop with its tools and context manager, and what they hold open. */
export interface AgentRuntime {
  loop: AgentLoop;
  /** Kill background processes, close the browser and the context database. */
  close(): Promise<void>;
}

export interface AgentRuntimeDeps {
  self: AgentSelf;
  store: ConversationStore;
  llm: () => Promise<OpenAI>;
  memory: () => MemoryEngine;
  meshUrl: string;
  token: string;
  dataDir: string;
  workspace: string;
  /** The agent's skills (bundled, fleet, workspace), for `skill_view` and the prompt. */
  skills?: () => Promise<SkillSnapshot>;
  logger: Logger;
  retryDelaysMs?: readonly number[];
}

/**
 * The tools (mesh.yaml `tools` applied), the context manager and the loop. Built once, on first
 * need or right after the agent reports ready: a fleet's start-up should not wait for this code.
 */
export function createAgentRuntime(deps: AgentRuntimeDeps): AgentRuntime {
  const { self, logger } = deps;
  const agentTools = createAgentTools({
    memory: deps.memory,
    mesh: { meshUrl: deps.meshUrl, token: deps.token },
    browser: self.browser,
    dataDir: deps.dataDir,
    llm: deps.llm,
  });
  // Under `lossless` one connection serves the context manager and the lcm tools.
  const lossless = self.context.strategy === 'lossless';
  const contextDb = lossless ? openDatabase(join(deps.dataDir, 'agent.db')) : join(deps.dataDir, 'agent.db');
  let lcmStore: SummaryStore | undefined;
  const lcmTools =
    typeof contextDb === 'string'
      ? []
      : createLcmTools(() => (lcmStore ??= new SummaryStore(contextDb, logger)));
  const skillTools = deps.skills ? [createSkillViewTool(deps.skills)] : [];
  const { tools, unknown } = selectTools(self.tools, [...agentTools.tools, ...lcmTools, ...skillTools]);
  if (unknown.length > 0) {
    logger.warn({ unknown }, `mesh.yaml tools names tools this agent does not have: ${unknown.join(', ')}`);
  }
  const context = createContextManager({
    llm: deps.llm,
    memory: deps.memory,
    workspaceDir: deps.workspace,
    database: contextDb,
    settings: self.context,
    logger,
  });
  const recall = createMemoryRecall({
    memory: deps.memory,
    recallChars: self.memory.recall_chars,
    ownScope: `agent:${self.agent}`,
    ...(self.memory.shared_scopes.length > 0
      ? {
          shared: meshSharedRecall(
            createMeshClient({ meshUrl: deps.meshUrl, token: deps.token }),
            self.memory.shared_scopes,
          ),
        }
      : {}),
    logger,
  });
  const loop = createAgentLoop({
    self,
    store: deps.store,
    llm: deps.llm,
    // Recall reads what each call's view holds, to re-inject what compaction took out of it.
    contextManager: withRecallViews(context, recall.views),
    recall,
    tools,
    ...(deps.skills ? { skills: deps.skills } : {}),
    workspace: deps.workspace,
    instructions: hostInstructions(
      createHostClient({
        meshUrl: deps.meshUrl,
        token: deps.token,
        retryDelaysMs: INSTRUCTIONS_RETRY_DELAYS_MS,
      }),
      logger,
    ),
    logger,
    ...(deps.retryDelaysMs ? { retryDelaysMs: deps.retryDelaysMs } : {}),
  });
  return {
    loop,
    async close() {
      await agentTools.close();
      context.close();
      if (typeof contextDb !== 'string') contextDb.close();
    },
  };
}
