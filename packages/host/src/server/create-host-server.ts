import { registerErrorHandling } from '@openlegion/infra/http';
import type { AgentSelf, MeshStatus } from '@openlegion/protocol';
import Fastify, { type FastifyBaseLogger, type FastifyInstance } from 'fastify';
import type { Logger } from 'pino';
import { registerRouteAuth, type TokenRegistry } from '../auth/index.js';
import type { LlmProxy } from '../llm/index.js';
import { registerLlmRoutes } from '../llm/llm-routes.js';
import type { AgentRegistry } from '../registry/index.js';
import type { AgentClient } from './agent-client.js';
import { registerMeshRoutes } from './mesh-routes.js';
import { registerOperatorRoutes } from './operator-routes.js';

/** Large enough for a long chat history with pasted documents. */
export const BODY_LIMIT_BYTES = 10 * 1024 * 1024;

export interface HostServerOptions {
  logger: Logger;
  tokens: TokenRegistry;
  operatorToken: string;
  registry: AgentRegistry;
  llm: LlmProxy;
  agentClient: AgentClient;
  meshStatus: () => MeshStatus;
  selfFor: (agent: string) => AgentSelf;
  /** Called after `POST /api/shutdown` has been answered. */
  onShutdown?: () => void;
}

/**
 * The host's HTTP server: LLM proxy (`/v1/*`), mesh API (`/mesh/*`), operator API (`/api/*`) and
 * `/healthz`. It does not listen; call `app.listen({ host, port })` for each bind address.
 */

/** Bodies are parsed with zod, so fastify need not build ajv and fast-json-stringify at start-up. */
const noJsonSchemas = () => () => {
  throw new Error('route JSON schemas are not used here: parse with zod');
};

export function createHostServer(options: HostServerOptions): FastifyInstance {
  // Typed as fastify's base logger so route modules take the plain FastifyInstance.
  const loggerInstance: FastifyBaseLogger = options.logger;
  const app: FastifyInstance = Fastify({
    loggerInstance,
    bodyLimit: BODY_LIMIT_BYTES,
    schemaController: { compilersFactory: { buildValidator: noJsonSchemas, buildSerializer: noJsonSchemas } },
  });
  registerErrorHandling(app);
  registerRouteAuth(app, { tokens: options.tokens, operatorToken: options.operatorToken });
  app.get('/healthz', { config: { auth: 'none' } }, async () => ({ ok: true }));
  registerLlmRoutes(app, options.llm);
  registerMeshRoutes(app, { registry: options.registry, selfFor: options.selfFor });
  registerOperatorRoutes(app, options);
  return app;
}
