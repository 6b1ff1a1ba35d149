import { existsSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { defaultScopes, MemoryEngine } from '@openlegion/memory';
import { type AgentSelf, OpenLegionError } from '@openlegion/protocol';
import type { FastifyInstance } from 'fastify';
import type OpenAI from 'openai';
import type { Logger } from 'pino';
import type { AgentEnv } from './agent-env.js';
import type { AgentRuntime } from './agent-runtime.js';
import { createAgentServer, type ReadyAgent } from './agent-server.js';
import { createFastTierCall } from './context/fast-tier.js';
import { lazyLcmStore } from './context/lossless/lazy-lcm-store.js';
import { ConversationStore } from './conversation-store.js';
import { createHostClient } from './host-client.js';
import { loadLlmClient } from './llm-client.js';
import { deferredLoop } from './loop/deferred-loop.js';
import { agentMemoryOptions } from './memory/agent-memory-options.js';
import { type MemoryBackfill, startMemoryBackfill } from './memory/memory-backfill.js';
import { skillSource } from './skills/skill-source.js';
import { TraceParents } from './trace-parents.js';
import { ignoredInstructionFiles, ignoredInstructionsMessage } from './workspace/ignored-instructions.js';
import { scaffoldWorkspace } from './workspace/workspace-scaffold.js';

/** A started agent: listening, known to the host, ready for chats. */
export interface RunningAgent {
  app: FastifyInstance;
  /** The address the server listens on, e.g. `http://127.0.0.1:8400`. */
  url: string;
  /** Stop accepting requests, abort chats in flight, close the database. */
  close(): Promise<void>;
}

/** Knobs tests turn; a real agent runs with the defaults. */
export interface AgentTuning {
  /** Waits before retrying a retryable LLM failure. */
  llmRetryDelaysMs?: readonly number[];
  /** Waits before retrying a failed background re-embed of memory. */
  memoryBackfillRetryMs?: readonly number[];
  /** How often memory is checked for items without vectors. */
  memoryBackfillCheckMs?: number;
  /** Waits between tries to hand a subagent's answer to the host's lane. */
  subagentDeliveryRetryMs?: readonly number[];
}

/**
 * Wire and start the agent in the contract's order: open the store, scaffold the workspace,
 * listen, `GET /mesh/self`, `POST /mesh/ready`. On failure everything opened so far is closed again.
 */
export async function startAgent(options: {
  env: AgentEnv;
  logger: Logger;
  version: string;
  tuning?: AgentTuning;
}): Promise<RunningAgent> {
  const { env, logger, version } = options;
  const store = ConversationStore.open(env.AGENT_DATA_DIR);
  const workspace = join(env.AGENT_DATA_DIR, 'workspace');
  // Opened on first use: most agent starts never touch memory, and start-up is what a fleet pays for.
  let memoryEngine: MemoryEngine | undefined;
  const memoryFile = join(env.AGENT_DATA_DIR, 'memory.db');
  // Known from `GET /mesh/self`: the engine's embedder and LLM paths come from mesh.yaml.
  let memoryConfig: AgentSelf['memory'] | undefined;
  let llmClient: Promise<OpenAI> | undefined;
  const traceParents = new TraceParents();
  const llm = () =>
    (llmClient ??= loadLlmClient({ meshUrl: env.MESH_URL, token: env.MESH_TOKEN, traceParents }));
  const memory = () => {
    if (memoryEngine) return memoryEngine;
    if (!memoryConfig)
      throw new OpenLegionError(
        'AGENT_NOT_READY',
        'memory opens once the agent has its configuration from the host',
      );
    memoryEngine = MemoryEngine.open({
      file: memoryFile,
      defaultScopes: defaultScopes(env.AGENT_ID),
      ...agentMemoryOptions(memoryConfig, {
        meshUrl: env.MESH_URL,
        token: env.MESH_TOKEN,
        fastTier: createFastTierCall(llm, undefined, (error) =>
          logger.warn(
            { err: error },
            "fast tier unavailable; the call went to the default tier (its cost is the default model's)",
          ),
        ),
      }),
    });
    backfill?.kick();
    return memoryEngine;
  };
  let backfill: MemoryBackfill | undefined;
  let readyAgent: ReadyAgent | undefined;
  const lcm = lazyLcmStore(join(env.AGENT_DATA_DIR, 'agent.db'), logger);
  const skills = skillSource({
    workspace,
    fleetDir: env.AGENT_FLEET_SKILLS_DIR || undefined,
    disabled: () => readyAgent?.self.skills.disabled ?? [],
  });
  const app = createAgentServer({
    env,
    store,
    logger,
    version,
    ready: () => readyAgent,
    memory,
    workspace,
    lcm: lcm.get,
    skills,
    traceParents,
  });
  let runtime: Promise<AgentRuntime> | undefined;
  let closed = false;
  const close = async () => {
    closed = true;
    backfill?.close();
    await app.close();
    await (await runtime?.catch(() => undefined))?.close();
    store.close();
    lcm.close();
    memoryEngine?.close();
  };
  try {
    const created = await scaffoldWorkspace(workspace);
    if (created.length > 0) logger.info({ files: created }, 'workspace scaffolded');
    const ignored = await ignoredInstructionFiles(workspace);
    if (ignored.length > 0)
      logger.warn({ files: ignored }, ignoredInstructionsMessage(env.AGENT_ID, ignored));
    await app.listen({ host: env.AGENT_HOST, port: env.AGENT_PORT });
    const { port } = app.server.address() as AddressInfo; // listening on TCP, so never a pipe name
    const host = createHostClient({ meshUrl: env.MESH_URL, token: env.MESH_TOKEN });
    const self = await host.getSelf();
    memoryConfig = self.memory;
    backfill = startMemoryBackfill({
      opened: () => memoryEngine,
      logger,
      ...(options.tuning?.memoryBackfillRetryMs ? { retryMs: options.tuning.memoryBackfillRetryMs } : {}),
      ...(options.tuning?.memoryBackfillCheckMs ? { checkMs: options.tuning.memoryBackfillCheckMs } : {}),
    });
    // The loop, its tools and the context manager are a separate chunk of the bundle, loaded
    // after the agent reports ready (or by the first turn): a fleet starting at once on a few
    // cores should not wait to compile code no turn has needed yet.
    const loadRuntime = () =>
      (runtime ??= import('./agent-runtime.js').then(({ createAgentRuntime }) =>
        createAgentRuntime({
          self,
          store,
          llm,
          memory,
          meshUrl: env.MESH_URL,
          token: env.MESH_TOKEN,
          traceParents,
          dataDir: env.AGENT_DATA_DIR,
          workspace,
          skills,
          logger,
          ...(options.tuning?.llmRetryDelaysMs ? { retryDelaysMs: options.tuning.llmRetryDelaysMs } : {}),
          ...(options.tuning?.subagentDeliveryRetryMs
            ? { subagentDeliveryRetryMs: options.tuning.subagentDeliveryRetryMs }
            : {}),
        }),
      ));
    const loop = deferredLoop(loadRuntime);
    readyAgent = {
      self,
      loop,
      mcp: async () => (await loadRuntime()).mcp,
      subagents: async () => (await loadRuntime()).subagents,
    };
    const url = `http://${urlHost(env.AGENT_HOST)}:${port}`;
    // A wildcard address means nothing to the host, which then uses what it knows (container name).
    await host.reportReady(isWildcard(env.AGENT_HOST) ? { version } : { url, version });
    // Load the SDK and the runtime now, off the startup path; a failure surfaces again at the first turn.
    llm().catch((error: unknown) => logger.error({ err: error }, 'llm client failed to load'));
    loadRuntime().catch((error: unknown) => logger.error({ err: error }, 'agent runtime failed to load'));
    // A store from an earlier run may wait for a re-embed (a new embedder, a restart mid-way): open
    // it off the startup path. A first start has no store, and nothing to embed until a save.
    if (existsSync(memoryFile))
      setImmediate(() => {
        if (closed) return;
        try {
          memory();
        } catch (error) {
          logger.error({ err: error }, 'memory failed to open');
        }
      });
    logger.info({ model: self.model, url, startup_ms: Math.round(process.uptime() * 1000) }, 'agent ready');
    return { app, url, close };
  } catch (error) {
    await close();
    throw error;
  }
}

function isWildcard(host: string): boolean {
  return host === '0.0.0.0' || host === '::';
}

function urlHost(host: string): string {
  if (isWildcard(host)) return '127.0.0.1';
  return host.includes(':') ? `[${host}]` : host;
}
