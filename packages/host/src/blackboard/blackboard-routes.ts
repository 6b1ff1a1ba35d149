import { parseRequest } from '@openlegion/infra/http';
import { encodeSseFrame } from '@openlegion/infra/sse';
import {
  type BlackboardChange,
  blackboardKeySchema,
  blackboardPutSchema,
  blackboardWatchQuerySchema,
  type MeshConfig,
  OpenLegionError,
} from '@openlegion/protocol';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { z } from 'zod';
import { requireAgent } from '../auth/index.js';
import { globMatcher, type MeshPermissions } from '../permissions/index.js';
import {
  type AgentSlots,
  type AgentWriteRate,
  boundedBody,
  endWithHost,
  openHostStream,
} from '../server/index.js';
import { type BlackboardStore, MAX_VALUE_BYTES } from './blackboard-store.js';
import type { BlackboardWatchers } from './blackboard-watchers.js';

const keyParams = z.object({ '*': blackboardKeySchema }).transform(({ '*': key }) => ({ key }));
const listQuery = z.object({
  prefix: z.string().max(256).default(''),
  limit: z.coerce.number().int().min(1).max(1_000).default(100),
});
const deleteQuery = z.object({ if_version: z.coerce.number().int().min(0).optional() });

interface BlackboardRouteDeps {
  store: () => BlackboardStore;
  watchers: () => BlackboardWatchers;
  permissions: () => MeshPermissions;
  /** Aborts when the host stops: open watches end then. */
  stopping: AbortSignal;
  /** Each agent's open streams (a watch takes one) and the bounds from mesh.yaml. */
  streams: AgentSlots;
  /** How fast each agent may write (the operator is not held to it). */
  writes: AgentWriteRate;
  limits: MeshConfig['limits'];
}

/** Who is asking, and what they may read and write. */
interface Reader {
  who(request: FastifyRequest): string;
  mayRead(who: string, key: string): boolean;
  requireRead(who: string, key: string): void;
  requireWrite(who: string, key: string): void;
}

/**
 * `/mesh/blackboard/*` for agents (within their permissions) and `/api/blackboard/*` for the
 * operator (everything): entries by key, list by prefix, history, and a watch over SSE.
 */
export function registerBlackboardRoutes(app: FastifyInstance, deps: BlackboardRouteDeps): void {
  register(app, '/mesh/blackboard', 'agent', deps, {
    who: requireAgent,
    mayRead: (agent, key) => deps.permissions().can(agent, 'blackboard.read', key),
    requireRead: (agent, key) => deps.permissions().require(agent, 'blackboard.read', key),
    requireWrite: (agent, key) => deps.permissions().require(agent, 'blackboard.write', key),
  });
  register(app, '/api/blackboard', 'operator', deps, {
    who: () => 'operator',
    mayRead: () => true,
    requireRead: () => {},
    requireWrite: () => {},
  });
}

function register(
  app: FastifyInstance,
  base: string,
  auth: 'agent' | 'operator',
  deps: BlackboardRouteDeps,
  reader: Reader,
): void {
  const config = { auth } as const;

  app.get(`${base}/entries/*`, { config }, async (request) => {
    const { key } = parseRequest(keyParams, request.params, 'params');
    reader.requireRead(reader.who(request), key);
    const entry = deps.store().get(key);
    if (!entry)
      throw new OpenLegionError('MESH_KEY_NOT_FOUND', `no blackboard entry "${key}"`, { details: { key } });
    return { entry };
  });

  const putBody = boundedBody(MAX_VALUE_BYTES, 'value', 'the blackboard value cap', deps.writes);
  app.put(`${base}/entries/*`, { config, ...putBody }, async (request) => {
    const { key } = parseRequest(keyParams, request.params, 'params');
    const who = reader.who(request);
    reader.requireWrite(who, key);
    const body = parseRequest(blackboardPutSchema, request.body);
    const entry = await deps
      .store()
      .put(key, body.value, who, { ifVersion: body.if_version, ttlSeconds: body.ttl_s });
    return { entry };
  });

  app.delete(`${base}/entries/*`, { config }, async (request) => {
    const { key } = parseRequest(keyParams, request.params, 'params');
    const { if_version } = parseRequest(deleteQuery, request.query, 'query');
    const who = reader.who(request);
    reader.requireWrite(who, key);
    if (request.agent) deps.writes.take(request.agent, 0);
    await deps.store().delete(key, who, if_version);
    return { deleted: key };
  });

  app.get(`${base}/entries`, { config }, async (request) => {
    const { prefix, limit } = parseRequest(listQuery, request.query, 'query');
    const who = reader.who(request);
    return { entries: deps.store().list(prefix, limit, (key) => reader.mayRead(who, key)) };
  });

  app.get(`${base}/history/*`, { config }, async (request) => {
    const { key } = parseRequest(keyParams, request.params, 'params');
    reader.requireRead(reader.who(request), key);
    return { history: deps.store().history(key) };
  });

  // Changes to readable keys matching `pattern`, as they commit: `event: put|delete`.
  app.get(`${base}/watch`, { config }, async (request, reply) => {
    const { pattern } = parseRequest(blackboardWatchQuerySchema, request.query, 'query');
    const who = reader.who(request);
    const matches = globMatcher([pattern]);
    const stream = openHostStream(reply, { agent: request.agent, slots: deps.streams, limits: deps.limits });
    stream.send(': watching\n\n');
    const stop = deps.watchers().add((change) => {
      // Permission first: the agent's own pattern only ever runs on keys it may read.
      if (reader.mayRead(who, change.key) && matches(change.key)) stream.send(frameOf(change));
    });
    endWithHost(stream, deps.stopping, stop);
  });
}

/** Each change's frame, written once however many watchers it reaches (a 64 KiB value is not copied per stream). */
const frames = new WeakMap<BlackboardChange, string>();
function frameOf(change: BlackboardChange): string {
  let frame = frames.get(change);
  if (frame === undefined) {
    frame = encodeSseFrame({ event: change.kind, data: JSON.stringify(change) });
    frames.set(change, frame);
  }
  return frame;
}
