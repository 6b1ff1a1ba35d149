import { refuseFrameworkError, registerErrorHandling } from '@openlegion/infra/http';
import type { FastifyBaseLogger, FastifyInstance } from 'fastify';
import type { Logger } from 'pino';
import { type RouteAuth, type RouteAuthOptions, registerRouteAuth } from '../auth/index.js';
import type { BuiltFeature } from '../features/index.js';

/** Large enough for a long chat history with pasted documents. */
export const BODY_LIMIT_BYTES = 10 * 1024 * 1024;

export interface HostAppOptions {
  logger: Logger;
  auth: RouteAuthOptions;
  /** The features, built (see `buildFeatures`). */
  features: readonly BuiltFeature[];
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
    bodyLimit: BODY_LIMIT_BYTES,
    frameworkErrors: refuseFrameworkError,
    schemaController: { compilersFactory: { buildValidator: noJsonSchemas, buildSerializer: noJsonSchemas } },
  });
  registerErrorHandling(app);
  const routes = options.routes;
  if (routes)
    app.addHook('onRoute', (route) => {
      // HEAD routes are fastify's own mirrors of the GET ones.
      for (const method of [route.method].flat())
        if (method !== 'HEAD')
          routes.push({ method, url: route.url, auth: route.config?.auth ?? 'operator' });
    });
  registerRouteAuth(app, options.auth);
  app.get('/healthz', { config: { auth: 'none' } }, async () => ({ ok: true }));
  for (const feature of options.features) feature.routes?.(app);
  return app;
}
