import { type Clock, systemClock } from '@openlegion/infra/clock';
import { refuseFrameworkError, registerErrorHandling } from '@openlegion/infra/http';
import type { MemoryEngine } from '@openlegion/memory';
import type { AgentSelf, AgentStatus } from '@openlegion/protocol';
import Fastify, { type FastifyBaseLogger, type FastifyInstance } from 'fastify';
import type { AgentEnv } from './agent-env.js';
import { bearerAuth } from './bearer-auth.js';
import { lcmRoutes, type SummaryStore } from './context/lossless/index.js';
import type { ConversationStore } from './conversation-store.js';
import { ActiveTurns } from './loop/active-turns.js';
import type { AgentLoop } from './loop/agent-loop.js';
import { type McpOperator, mcpRoutes } from './mcp/mcp-routes.js';
import { memoryRoutes } from './memory-routes.js';
import { turnRoutes } from './routes/turn-routes.js';
import { type SkillSnapshot, skillsRoutes } from './skills/index.js';
import { type SubagentLister, subagentRoutes } from './subagents/subagent-routes.js';
import type { TraceParents } from './trace-parents.js';
import { workspaceRoutes } from './workspace/workspace-routes.js';

/** Room for a maximal message (200 000 characters) even when every one is JSON-escaped. */
const BODY_LIMIT_BYTES = 2 * 1024 * 1024;

/** What the agent can do once the host has told it who it is. */
export interface ReadyAgent {
  self: AgentSelf;
  loop: AgentLoop;
  /** The agent's MCP servers, once its runtime has loaded (the `/mcp/*` routes wait for it). */
  mcp?: () => Promise<McpOperator>;
  /** The agent's in-container subagents, once its runtime has loaded (`GET /subagents/` waits for it). */
  subagents?: () => Promise<SubagentLister>;
}

export interface AgentServerDeps {
  env: Pick<AgentEnv, 'AGENT_ID' | 'MESH_TOKEN'>;
  store: Pick<ConversationStore, 'conversationCount'>;
  logger: FastifyBaseLogger;
  version: string;
  /**
   * The agent once `GET /mesh/self` has answered. The server listens before that (the contract's
   * order); until then `/status` says `starting` and the turn routes answer 503 AGENT_NOT_READY.
   */
  ready: () => ReadyAgent | undefined;
  /** For `uptime_ms`. */
  clock?: Clock;
  /** The agent's memory store; without it the `/memory/*` routes are not served. */
  memory?: () => MemoryEngine;
  /** The agent's workspace folder; without it the `/workspace/*` routes are not served. */
  workspace?: string;
  /** The lossless context store; without it the `/lcm/*` routes are not served. */
  lcm?: () => SummaryStore;
  /** The agent's skills; without them (or the workspace) `/skills/*` is not served. */
  skills?: () => Promise<SkillSnapshot>;
  /** Each turn's `traceparent`, kept for the calls the turn makes to the host. */
  traceParents?: TraceParents;
}

/** Bodies are parsed with zod, so fastify need not build ajv and fast-json-stringify at start-up. */
const noJsonSchemas = () => () => {
  throw new Error('route JSON schemas are not used here: parse with zod');
};

/**
 * The agent's HTTP API: `GET /status` (public); with the bearer token `POST /chat`, `POST /task`
 * (SSE), `POST /chat/steer`, `POST /heartbeat`, `/memory/*`, `/workspace/*`, `/lcm/*`, `/mcp/*`, `/skills/` and `/subagents/`. Closing the
 * server aborts the turns in flight.
 */
export function createAgentServer(deps: AgentServerDeps): FastifyInstance {
  const clock = deps.clock ?? systemClock;
  const startedMs = clock.now();
  const turns = new ActiveTurns();
  const controllers = new Set<AbortController>();
  /** Steps taken across all turns; the host's health monitor reads it to tell busy from hung. */
  let progress = 0;
  const app = Fastify({
    loggerInstance: deps.logger,
    bodyLimit: BODY_LIMIT_BYTES,
    frameworkErrors: refuseFrameworkError,
    schemaController: { compilersFactory: { buildValidator: noJsonSchemas, buildSerializer: noJsonSchemas } },
  });

  registerErrorHandling(app, { logName: 'agent' });
  app.addHook('preClose', async () => {
    for (const controller of controllers) controller.abort();
  });

  app.get('/status', async (): Promise<AgentStatus> => {
    const agent = deps.ready();
    return {
      agent: agent?.self.agent ?? deps.env.AGENT_ID,
      state: agent === undefined ? 'starting' : turns.size > 0 ? 'busy' : 'ready',
      version: deps.version,
      model: agent?.self.model ?? '',
      uptime_ms: Math.max(0, clock.now() - startedMs),
      conversations: deps.store.conversationCount(),
      progress,
    };
  });

  app.register(async (authed) => {
    authed.addHook('onRequest', bearerAuth(deps.env.MESH_TOKEN));
    if (deps.memory) authed.register(memoryRoutes(deps.memory));
    if (deps.workspace) authed.register(workspaceRoutes(deps.workspace));
    if (deps.lcm) authed.register(lcmRoutes(deps.lcm));
    authed.register(mcpRoutes(() => deps.ready()?.mcp?.()));
    authed.register(subagentRoutes(() => deps.ready()?.subagents?.()));
    if (deps.skills && deps.workspace) authed.register(skillsRoutes(deps.skills, deps.workspace));
    authed.register(
      turnRoutes({
        loop: () => deps.ready()?.loop,
        turns,
        controllers,
        onEvent: () => {
          progress += 1;
        },
        traceParents: deps.traceParents,
      }),
    );
  });

  return app;
}
