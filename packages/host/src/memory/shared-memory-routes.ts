import { parseRequest } from '@openlegion/infra/http';
import {
  SHARED_MEMORY_API_PATH,
  SHARED_MEMORY_MESH_PATH,
  sharedMemorySaveSchema,
  sharedMemorySearchSchema,
} from '@openlegion/protocol';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { z } from 'zod';
import { requireAgent } from '../auth/index.js';
import type { MeshPermissions } from '../permissions/index.js';
import { type AgentWriteRate, boundedBody } from '../server/index.js';
import { checkedScope, type SharedMemoryStore } from './shared-memory-store.js';

/** A saved fact's body: 20,000 characters of content, UTF-8 and JSON-escaped, with room to spare. */
const SAVE_BODY_BYTES = 64 * 1024;
/** A search's body: an 8,000-character query and its few other fields. */
const SEARCH_BODY_BYTES = 32 * 1024;

const scopeParams = z.object({ scope: z.string().min(1).max(200) });
const itemParams = z.object({ scope: z.string().min(1).max(200), id: z.coerce.number().int().positive() });
const listQuery = z.object({
  limit: z.coerce.number().int().min(1).max(1_000).default(100),
  offset: z.coerce.number().int().min(0).default(0),
});

interface SharedMemoryRouteDeps {
  store: SharedMemoryStore;
  permissions: MeshPermissions;
  /** How fast each agent may write (the operator is not held to it). */
  writes: AgentWriteRate;
}

/** Who is asking, and the checks for reading and writing a scope. */
interface Caller {
  /** The agent's name, or null for the operator. */
  who(request: FastifyRequest): string | null;
  requireRead(who: string | null, scope: string): void;
  requireWrite(who: string | null, scope: string): void;
}

/**
 * The shared memory scopes over HTTP: `/mesh/memory/SCOPE/...` for agents within
 * `permissions.memory`, `/api/memory/SCOPE/...` for the operator (every scope). Routes mirror the
 * agent's own `/memory/*`: `POST search`, `GET|POST items`, `GET|DELETE items/:id`.
 */
export function registerSharedMemoryRoutes(app: FastifyInstance, deps: SharedMemoryRouteDeps): void {
  register(app, SHARED_MEMORY_MESH_PATH, 'agent', deps, {
    who: requireAgent,
    requireRead: (agent, scope) => deps.permissions.require(agent ?? '', 'memory.read', scope),
    requireWrite: (agent, scope) => deps.permissions.require(agent ?? '', 'memory.write', scope),
  });
  app.get(SHARED_MEMORY_API_PATH, { config: { auth: 'operator' } }, async () => ({
    scopes: deps.store.scopes(),
  }));
  register(app, SHARED_MEMORY_API_PATH, 'operator', deps, {
    who: () => null,
    requireRead: () => {},
    requireWrite: () => {},
  });
}

function register(
  app: FastifyInstance,
  base: string,
  auth: 'agent' | 'operator',
  deps: SharedMemoryRouteDeps,
  caller: Caller,
): void {
  const config = { auth } as const;
  // The scope is checked before the permission, so a malformed one says so rather than "forbidden".
  const scopeOf = (request: FastifyRequest) =>
    checkedScope(parseRequest(scopeParams, request.params, 'params').scope);

  const searchBody = boundedBody(SEARCH_BODY_BYTES, 'search', 'the shared memory search cap');
  app.post(`${base}/:scope/search`, { config, ...searchBody }, async (request) => {
    const scope = scopeOf(request);
    caller.requireRead(caller.who(request), scope);
    const body = parseRequest(sharedMemorySearchSchema, request.body);
    return deps.store.search(scope, body);
  });

  app.get(`${base}/:scope/items`, { config }, async (request) => {
    const scope = scopeOf(request);
    caller.requireRead(caller.who(request), scope);
    const { limit, offset } = parseRequest(listQuery, request.query, 'query');
    return { scope, items: deps.store.list(scope, limit, offset) };
  });

  const saveBody = boundedBody(SAVE_BODY_BYTES, 'memory', 'the shared memory fact cap', deps.writes);
  app.post(`${base}/:scope/items`, { config, ...saveBody }, async (request) => {
    const scope = scopeOf(request);
    const who = caller.who(request);
    caller.requireWrite(who, scope);
    const body = parseRequest(sharedMemorySaveSchema, request.body);
    return deps.store.save(scope, who, body);
  });

  app.get(`${base}/:scope/items/:id`, { config }, async (request) => {
    const { scope: raw, id } = parseRequest(itemParams, request.params, 'params');
    const scope = checkedScope(raw);
    caller.requireRead(caller.who(request), scope);
    return { item: deps.store.get(scope, id) };
  });

  app.delete(`${base}/:scope/items/:id`, { config }, async (request) => {
    const { scope: raw, id } = parseRequest(itemParams, request.params, 'params');
    const scope = checkedScope(raw);
    const who = caller.who(request);
    caller.requireWrite(who, scope);
    if (request.agent) deps.writes.take(request.agent, 0);
    deps.store.delete(scope, id, who);
    return { deleted: id, scope };
  });
}
