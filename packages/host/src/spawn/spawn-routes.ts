import { parseRequest } from '@openlegion/infra/http';
import { type SpawnedAgent, spawnRequestSchema } from '@openlegion/protocol';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { z } from 'zod';
import { requireAgent } from '../auth/index.js';
import type { SpawnCaller, SpawnService } from './spawn-service.js';

const nameParams = z.object({ name: z.string().min(1).max(64) });

/**
 * Agents: `POST /mesh/spawn` {template, task, ttl_s?, wait_s?}, `GET /mesh/spawn` (their own),
 * `GET /mesh/spawn/NAME`. The operator: the same under `/api/spawn`, over every temporary agent.
 */
export function registerSpawnRoutes(app: FastifyInstance, service: () => SpawnService): void {
  const spawn = async (request: FastifyRequest, reply: FastifyReply, caller: SpawnCaller) => {
    const body = parseRequest(spawnRequestSchema, request.body);
    const agent = service().spawn(body, caller);
    if (body.wait_s === undefined) return reply.code(202).send({ agent });
    const hungUp = new AbortController();
    // The response closing before it was sent is the caller hanging up (the request's own
    // 'close' fires as soon as its body is read).
    reply.raw.once('close', () => {
      if (!reply.raw.writableFinished) hungUp.abort();
    });
    const ended: SpawnedAgent = await service().wait(agent.name, body.wait_s * 1000, hungUp.signal);
    return reply.code(ended.ended_at === null ? 202 : 200).send({ agent: ended });
  };

  app.post('/mesh/spawn', { config: { auth: 'agent' } }, (request, reply) =>
    spawn(request, reply, { origin: 'agent', spawner: requireAgent(request) }),
  );
  app.get('/mesh/spawn', { config: { auth: 'agent' } }, async (request) => ({
    agents: service().list(requireAgent(request)),
  }));
  app.get('/mesh/spawn/:name', { config: { auth: 'agent' } }, async (request) => {
    const { name } = parseRequest(nameParams, request.params, 'params');
    return { agent: service().get(name, requireAgent(request)) };
  });

  app.post('/api/spawn', { config: { auth: 'operator' } }, (request, reply) =>
    spawn(request, reply, { origin: 'operator' }),
  );
  app.get('/api/spawn', { config: { auth: 'operator' } }, async () => ({ agents: service().list() }));
  app.get('/api/spawn/:name', { config: { auth: 'operator' } }, async (request) => {
    const { name } = parseRequest(nameParams, request.params, 'params');
    return { agent: service().get(name) };
  });
}
