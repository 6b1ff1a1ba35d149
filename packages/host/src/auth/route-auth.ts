import { digestMatches, parseBearer, tokenDigest } from '@openlegion/infra/http';
import { OpenLegionError } from '@openlegion/protocol';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { TokenRegistry } from './token-registry.js';

/**
 * Who may call a route, declared in its config: `{ config: { auth: 'agent' } }`.
 * A route that declares nothing is operator-only, so a forgotten declaration fails closed.
 */
export type RouteAuth = 'none' | 'agent' | 'operator' | 'agent-or-operator';

/** Who made the request, as proven by its bearer token (or, for the operator, the dashboard's session). */
export type Caller = { kind: 'agent'; agent: string } | { kind: 'operator'; via?: 'dashboard' };

declare module 'fastify' {
  interface FastifyContextConfig {
    auth?: RouteAuth;
  }
  interface FastifyRequest {
    /** The calling agent, set on routes an agent called with its own token. */
    agent: string | undefined;
    /** The proven caller; undefined on `auth: 'none'` routes. */
    caller: Caller | undefined;
  }
}

/**
 * Proves a caller by something other than a bearer token: the dashboard's session cookie. Asked only
 * for requests that send no Authorization header, so a bearer token always decides alone.
 */
export interface SessionCheck {
  /**
   * The caller the request's session proves; undefined when it carries no session at all. Throws
   * the refusal when it carries a bad one (expired, from a forged Origin, a change without its CSRF
   * token), so a bad session is never mistaken for no session.
   */
  callerOf(request: FastifyRequest): Caller | undefined;
}

export interface RouteAuthOptions {
  tokens: TokenRegistry;
  operatorToken: string;
  /** Sessions that sign the operator in without the bearer header (the dashboard's). */
  sessions?: SessionCheck | undefined;
}

/**
 * Check every request's bearer token against the route's declared `auth`.
 * Missing header → 401 AUTH_MISSING; unknown token → 401 AUTH_INVALID; wrong kind → 403 AUTH_FORBIDDEN.
 */
export function registerRouteAuth(app: FastifyInstance, options: RouteAuthOptions): void {
  const operatorDigest = tokenDigest(options.operatorToken);
  const identifyCaller = (token: string): Caller | undefined => {
    // One digest per request, compared with the operator's and every agent's.
    const presented = tokenDigest(token);
    if (digestMatches(presented, operatorDigest)) return { kind: 'operator' };
    const agent = options.tokens.identifyDigest(presented);
    return agent === undefined ? undefined : { kind: 'agent', agent };
  };

  app.decorateRequest('agent', undefined);
  app.decorateRequest('caller', undefined);
  app.addHook('onRequest', async (request) => {
    // Unknown routes answer 404 whoever asks.
    if (request.is404) return;
    const policy = request.routeOptions.config.auth ?? 'operator';
    if (policy === 'none') return;
    const session =
      request.headers.authorization === undefined ? options.sessions?.callerOf(request) : undefined;
    const caller = session ?? identifyCaller(bearerToken(request));
    if (!caller) throw new OpenLegionError('AUTH_INVALID', 'the bearer token is not valid for this host');
    if (!allows(policy, caller)) {
      throw new OpenLegionError('AUTH_FORBIDDEN', `this route needs the ${describe(policy)} token`, {
        details: { route: request.routeOptions.url, needs: policy, caller: caller.kind },
      });
    }
    request.caller = caller;
    if (caller.kind === 'agent') request.agent = caller.agent;
  });
}

/**
 * The agent that called an `auth: 'agent'` route.
 * Throws INTERNAL when used on a route that does not authenticate agents (a wiring fault).
 */
export function requireAgent(request: FastifyRequest): string {
  if (request.agent === undefined) {
    throw new OpenLegionError(
      'INTERNAL',
      `route ${request.routeOptions.url ?? request.url} has no agent caller`,
    );
  }
  return request.agent;
}

function bearerToken(request: FastifyRequest): string {
  const header = request.headers.authorization;
  if (!header) throw new OpenLegionError('AUTH_MISSING', 'send Authorization: Bearer <token>');
  const token = parseBearer(header);
  if (!token) throw new OpenLegionError('AUTH_INVALID', 'the Authorization header is not "Bearer <token>"');
  return token;
}

function allows(policy: Exclude<RouteAuth, 'none'>, caller: Caller): boolean {
  return policy === 'agent-or-operator' || policy === caller.kind;
}

function describe(policy: Exclude<RouteAuth, 'none'>): string {
  return policy === 'agent-or-operator' ? 'agent or operator' : policy;
}
