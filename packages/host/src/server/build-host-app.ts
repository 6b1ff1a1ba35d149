import { refuseFrameworkError, registerErrorHandling } from '@openlegion/infra/http';
import type { FastifyBaseLogger, FastifyInstance } from 'fastify';
import type { Logger } from 'pino';
import { type RouteAuth, type RouteAuthOptions, registerRouteAuth } from '../auth/index.js';
import type { BuiltFeature } from '../features/index.js';
import type { AgentRequestRate } from './agent-request-rate.js';

/** Large enough for a long chat history with pasted documents. */
export const BODY_LIMIT_BYTES = 10 * 1024 * 1024;

export interface HostAppOptions {
  logger: Logger;
  auth: RouteAuthOptions;
  /** The features, built (see `buildFeatures`). */
  features: readonly BuiltFeature[];
  /** Each agent's request rate, counted once its token is known (see `requestRateOf`). */
  requests?: AgentRequestRate;
  /** Every route the app registers is added here (route fuzzing walks the real list). */
  routes?: HostRoute[];
}

/** One route of the host's app, as registered. */
export interface HostRoute {
  method: string;
  url: string;
  auth: RouteAuth;
}

/** Bodies are parsed with zod, so fastify need not build ajv and fast-json-stringify at start-up. */
const noJsonSchemas = () => () => {
  throw new Error('route JSON schemas are not used here: parse with zod');
};

/**
 * The host's HTTP app: error bodies, bearer auth by each route's declared `auth`, `/healthz`, and
 * every feature's routes. fastify is loaded here, on demand: it is most of the host's start-up
 * time, and the root loads it while the agents boot. The app does not listen.
 */
export async function buildHostApp(options: HostAppOptions): Promise<FastifyInstance> {
  const { default: Fastify } = await import('fastify');
  // Typed as fastify's base logger so route modules take the plain FastifyInstance.
  const loggerInstance: FastifyBaseLogger = options.logger;
  const app: FastifyInstance = Fastify({
    loggerInstance,
    // fastify's own two info lines per request would let an agent write the host's log (and its
    // disk) as fast as it can send requests; one debug line per request is logged below instead.
    logController: new Fastify.LogController({ disableRequestLogging: true }),
    bodyLimit: BODY_LIMIT_BYTES,
    frameworkErrors: refuseFrameworkError,
    schemaController: { compilersFactory: { buildValidator: noJsonSchemas, buildSerializer: noJsonSchemas } },
  });
  registerErrorHandling(app);
  app.addHook('onResponse', async (request, reply) => {
    if (!options.logger.isLevelEnabled('debug')) return;
    // By route pattern, never the raw URL an agent chose.
    request.log.debug(
      {
        method: request.method,
        route: request.routeOptions.url ?? '(no route)',
        status: reply.statusCode,
        ms: Math.round(reply.elapsedTime),
        caller: request.agent ?? request.caller?.kind,
      },
      'request',
    );
  });
  const routes = options.routes;
  if (routes)
    app.addHook('onRoute', (route) => {
      // HEAD routes are fastify's own mirrors of the GET ones.
      for (const method of [route.method].flat())
        if (method !== 'HEAD')
          routes.push({ method, url: route.url, auth: route.config?.auth ?? 'operator' });
    });
  registerRouteAuth(app, options.auth);
  const requests = options.requests;
  if (requests)
    app.addHook('onRequest', async (request, reply) => {
      const refusal = request.agent === undefined ? undefined : await requests.admit(request.agent);
      if (!refusal) return;
      // A body is not read: the connection closes after the answer instead.
      if (hasBody(request.headers)) void reply.header('connection', 'close');
      throw refusal;
    });
  app.get('/healthz', { config: { auth: 'none' } }, async () => ({ ok: true }));
  for (const feature of options.features) feature.routes?.(app);
  return app;
}

function hasBody(headers: Record<string, string | string[] | undefined>): boolean {
  return headers['transfer-encoding'] !== undefined || Number(headers['content-length'] ?? 0) > 0;
}
