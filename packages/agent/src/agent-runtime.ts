import { join } from 'node:path';
import { openDatabase } from '@openlegion/infra/sqlite';
import type { MemoryEngine } from '@openlegion/memory';
import { type AgentSelf, SELF_INBOX_MESH_PATH } from '@openlegion/protocol';
import type OpenAI from 'openai';
import type { Logger } from 'pino';
import { createToolApprovalGate } from './approvals/tool-approval-gate.js';
import { createContextManager } from './context/create-context-manager.js';
import { createFastTierCall } from './context/fast-tier.js';
import { createLcmTools, SummaryStore } from './context/lossless/index.js';
import type { ConversationStore } from './conversation-store.js';
import { createHostClient } from './host-client.js';
import { type AgentLoop, type AgentLoopDeps, createAgentLoop } from './loop/agent-loop.js';
import { createMessageClassifier } from './loop/message-classifier.js';
import { createMcpTransport, McpManager } from './mcp/index.js';
import type { McpOperator } from './mcp/mcp-routes.js';
import { createMemoryRecall, meshSharedRecall, withRecallViews } from './memory-recall/index.js';
import { createSkillViewTool, type SkillSnapshot } from './skills/index.js';
import {
  type ChildLoopFactory,
  createSubagentTools,
  MAX_SUBAGENT_DEPTH,
  SUBAGENT_TOOL_NAMES,
  SubagentManager,
  SubagentStore,
  squadMemoryClient,
  withParentTurns,
} from './subagents/index.js';
import { createAgentTools } from './tool-registry/agent-tools.js';
import { selectTools } from './tool-registry/tool-profiles.js';
import { createMeshClient } from './tools/index.js';
import type { TraceParents } from './trace-parents.js';
import { hostInstructions } from './workspace/operator-instructions.js';

/** Waits before retrying `GET /mesh/instructions` in a turn: short, the turn's LLM call needs the host too. */
const INSTRUCTIONS_RETRY_DELAYS_MS: readonly number[] = [100, 500];

/** What answers turns: the loop with its tools and context manager, and what they hold open. */
export interface AgentRuntime {
  loop: AgentLoop;
  /** The agent's MCP servers, for the operator's `/mcp/*` routes. */
  mcp: McpOperator;
  /** The agent's in-container subagents, for the operator's `GET /subagents/`. */
  subagents: SubagentManager;
  /** Settles once every MCP server is ready or failed its first start; turns wait for it. */
  ready: Promise<void>;
  /** Kill background processes, close the browser, the MCP servers and the context database. */
  close(): Promise<void>;
}

export interface AgentRuntimeDeps {
  self: AgentSelf;
  store: ConversationStore;
  llm: () => Promise<OpenAI>;
  memory: () => MemoryEngine;
  meshUrl: string;
  token: string;
  /** Each turn's `traceparent`, passed on by the mesh tools' calls. */
  traceParents?: TraceParents;
  dataDir: string;
  workspace: string;
  /** The agent's skills (bundled, fleet, workspace), for `skill_view` and the prompt. */
  skills?: () => Promise<SkillSnapshot>;
  logger: Logger;
  retryDelaysMs?: readonly number[];
  /** Waits between tries to hand a subagent's answer to the host's lane. */
  subagentDeliveryRetryMs?: readonly number[];
}

/**
 * The tools (mesh.yaml `tools` applied), the context manager and the loop. Built once, on first
 * need or right after the agent reports ready: a fleet's start-up should not wait for this code.
 */
export function createAgentRuntime(deps: AgentRuntimeDeps): AgentRuntime {
  const { self, logger } = deps;
  const agentTools = createAgentTools({
    memory: deps.memory,
    mesh: {
      meshUrl: deps.meshUrl,
      token: deps.token,
      ...(deps.traceParents ? { traceparentOf: (trace: string) => deps.traceParents?.of(trace) } : {}),
    },
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
  // Children are built on first spawn, from the loop's own parts (assigned below).
  let childLoop: ChildLoopFactory = () => {
    throw new Error('subagents spawn only once the agent runtime is built');
  };
  const mesh = createMeshClient({ meshUrl: deps.meshUrl, token: deps.token });
  const squads = squadMemoryClient(mesh);
  // Runs live in agent.db (on the /data volume): a restart runs them again and still delivers.
  const subagentStore = SubagentStore.open(deps.dataDir);
  const subagents = new SubagentManager({
    workspace: deps.workspace,
    childLoop: (child) => childLoop(child),
    logger,
    squads,
    store: subagentStore,
    deliver: async ({ key, conversationId, message, traceId }) => {
      await mesh.call({
        method: 'POST',
        path: SELF_INBOX_MESH_PATH,
        body: { key, conversation_id: conversationId, message },
        traceId,
      });
    },
    // A child that failed while the host was down (or no longer knows this token: the host was
    // replaced and is about to replace this agent) runs again, here or at the next start.
    hostAnswers: () =>
      mesh.call({ method: 'GET', path: '/mesh/self', timeoutMs: 5_000 }).then(
        () => true,
        () => false,
      ),
    ...(deps.subagentDeliveryRetryMs ? { deliveryRetryMs: deps.subagentDeliveryRetryMs } : {}),
  });
  const skillTools = deps.skills ? [createSkillViewTool(deps.skills)] : [];
  const selected = selectTools(self.tools, [
    ...agentTools.tools,
    ...lcmTools,
    ...skillTools,
    ...createSubagentTools(subagents, 0, squads),
  ]);
  if (selected.unknown.length > 0) {
    const { unknown } = selected;
    logger.warn({ unknown }, `mesh.yaml tools names tools this agent does not have: ${unknown.join(', ')}`);
  }
  // MCP tools come and go (a server starts, crashes, re-lists): the loop reads this array each turn.
  // They are added whatever mesh.yaml `tools` says: granting a server is the operator's choice.
  const tools = [...selected.tools];
  const mcp = new McpManager({
    servers: self.mcp,
    transport: (server) =>
      createMcpTransport(server, {
        mesh: { meshUrl: deps.meshUrl, token: deps.token },
        workspace: deps.workspace,
      }),
    logger,
    onToolsChanged: () => tools.splice(0, tools.length, ...selected.tools, ...mcp.tools()),
  });
  tools.push(...mcp.tools());
  const mcpStarted = mcp.start();
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
  const approval = createToolApprovalGate({
    patterns: self.approval,
    mesh: createMeshClient({ meshUrl: deps.meshUrl, token: deps.token }),
    logger,
  });
  const loopDeps: AgentLoopDeps = {
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
    ...(approval ? { approval } : {}),
    ...(self.loop.classify
      ? {
          classify: createMessageClassifier(
            createFastTierCall(deps.llm, undefined, (error) =>
              logger.warn(
                { err: error },
                "fast tier unavailable; the message was classified on the default tier (its cost is the default model's)",
              ),
            ),
            logger,
          ),
        }
      : {}),
    ...(deps.retryDelaysMs ? { retryDelaysMs: deps.retryDelaysMs } : {}),
  };
  const loop = withParentTurns(createAgentLoop(loopDeps), subagents);
  childLoop = (child) => {
    // A child's tools are within its parent's (the agent's): never more than mesh.yaml allows.
    const own = selectTools(child.tools, tools).tools.filter((tool) => !SUBAGENT_TOOL_NAMES.has(tool.name));
    const spawning =
      child.depth < MAX_SUBAGENT_DEPTH ? createSubagentTools(subagents, child.depth, squads) : [];
    const { recall: _parentRecall, ...parts } = loopDeps;
    return createAgentLoop({
      ...parts,
      self: { ...self, role: child.role, tools: [...own, ...spawning].map((tool) => tool.name) },
      tools: [...own, ...spawning],
      workspace: child.workspace,
      logger: logger.child({ depth: child.depth }),
    });
  };
  // Runs a stopped agent left behind run again now that children can be built.
  subagents.resume();
  return {
    loop,
    mcp,
    subagents,
    ready: mcpStarted,
    async close() {
      await subagents.close();
      subagentStore.close();
      await Promise.all([agentTools.close(), mcp.close()]);
      context.close();
      if (typeof contextDb !== 'string') contextDb.close();
    },
  };
}
