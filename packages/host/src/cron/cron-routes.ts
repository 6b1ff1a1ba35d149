import { parseRequest } from '@openlegion/infra/http';
import { OpenLegionError } from '@openlegion/protocol';
import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { requireAgent } from '../auth/index.js';
import { firstRun, parseSchedule } from '../config/index.js';
import type { CronJob, CronRepository } from './cron-repository.js';
import type { CronScheduler } from './cron-scheduler.js';

/** An agent may keep this many jobs of its own. */
export const MAX_AGENT_JOBS = 20;

const jobParams = z.object({ id: z.string().min(1) });
const newJobSchema = z.object({
  schedule: z.string().min(1).max(200),
  timezone: z.string().min(1).max(100).optional(),
  message: z.string().min(1).max(10_000).optional(),
  heartbeat: z.boolean().default(false),
});

interface CronRouteDeps {
  repo: () => CronRepository;
  scheduler: () => CronScheduler;
  now: () => number;
}

/** `/mesh/cron` (an agent's own jobs) and `/api/cron` (the operator's view and controls). */
export function registerCronRoutes(app: FastifyInstance, deps: CronRouteDeps): void {
  const operator = { auth: 'operator' } as const;
  const agentAuth = { auth: 'agent' } as const;
  const find = (id: string, agent?: string): CronJob => {
    const job = deps.repo().get(id);
    if (!job || (agent !== undefined && job.agent !== agent)) {
      throw new OpenLegionError('NOT_FOUND', `no cron job "${id}"`, { details: { id } });
    }
    return job;
  };

  app.get('/api/cron', { config: operator }, async () => ({ jobs: deps.repo().list() }));
  for (const [action, paused] of [
    ['pause', true],
    ['resume', false],
  ] as const) {
    app.post(`/api/cron/:id/${action}`, { config: operator }, async (request) => {
      const { id } = parseRequest(jobParams, request.params, 'params');
      find(id);
      deps.repo().setPaused(id, paused);
      deps.scheduler().rearm();
      return { job: find(id) };
    });
  }
  app.post('/api/cron/:id/run', { config: operator }, async (request) => {
    const { id } = parseRequest(jobParams, request.params, 'params');
    await deps.scheduler().runNow(find(id));
    return { job: find(id) };
  });
  app.delete('/api/cron/:id', { config: operator }, async (request) => {
    const { id } = parseRequest(jobParams, request.params, 'params');
    find(id);
    deps.repo().remove(id);
    deps.scheduler().rearm();
    return { ok: true };
  });

  app.get('/mesh/cron', { config: agentAuth }, async (request) => ({
    jobs: deps.repo().list(requireAgent(request)),
  }));
  app.post('/mesh/cron', { config: agentAuth }, async (request, reply) => {
    const agent = requireAgent(request);
    const body = parseRequest(newJobSchema, request.body);
    const schedule = parseScheduleField(body.schedule, body.timezone);
    const own = deps
      .repo()
      .list(agent)
      .filter((job) => job.origin === 'agent');
    if (own.length >= MAX_AGENT_JOBS) {
      throw new OpenLegionError(
        'REQUEST_INVALID',
        `agent "${agent}" already has ${own.length} cron jobs (at most ${MAX_AGENT_JOBS})`,
      );
    }
    const id = `${agent}@${deps.now().toString(36)}${own.length}`;
    deps.repo().upsert({
      id,
      agent,
      schedule: body.schedule,
      timezone: body.timezone ?? null,
      message: body.message ?? null,
      heartbeat: body.heartbeat,
      origin: 'agent',
      nextRunAt: firstRun(schedule, deps.now(), id) ?? null,
      createdAt: deps.now(),
    });
    deps.scheduler().rearm();
    return reply.code(201).send({ job: find(id) });
  });
  app.delete('/mesh/cron/:id', { config: agentAuth }, async (request) => {
    const { id } = parseRequest(jobParams, request.params, 'params');
    const agent = requireAgent(request);
    const job = find(id, agent);
    // A job from mesh.yaml (or the operator) is the operator's: an agent talked into it must not
    // switch off its own heartbeat or a scheduled report.
    if (job.origin !== 'agent')
      throw new OpenLegionError(
        'MESH_FORBIDDEN',
        `cron job "${id}" comes from ${job.origin === 'config' ? 'mesh.yaml' : 'the operator'}; agent "${agent}" may remove only the jobs it added`,
        { details: { id } },
      );
    deps.repo().remove(id);
    return { ok: true };
  });
}

function parseScheduleField(schedule: string, timezone: string | undefined) {
  try {
    return parseSchedule(schedule, timezone);
  } catch (error) {
    throw new OpenLegionError('REQUEST_INVALID', `body.schedule: ${(error as Error).message}`);
  }
}
