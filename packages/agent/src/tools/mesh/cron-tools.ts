import type { AgentTool } from '@openlegion/protocol';
import { z } from 'zod';
import { guardTool } from '../tool-failure.js';
import type { MeshClient } from './mesh-client.js';

const addInput = z.object({
  schedule: z
    .string()
    .min(1)
    .max(200)
    .describe('every 30m, every 2h, at 2026-12-01T09:00:00Z, or 5 cron fields such as 0 9 * * 1-5'),
  message: z.string().min(1).max(10_000).describe('What you will be told each time it fires'),
  timezone: z
    .string()
    .min(1)
    .max(100)
    .optional()
    .describe('IANA timezone for cron fields, e.g. Europe/Berlin'),
});
const removeInput = z.object({ id: z.string().min(1).max(200).describe('The job id (from cron_list)') });

/** The fields of a job the tools show (the host sends more). */
const jobSchema = z.object({
  id: z.string(),
  schedule: z.string(),
  timezone: z.string().nullable(),
  message: z.string().nullable(),
  heartbeat: z.boolean(),
  origin: z.string(),
  paused: z.boolean(),
  nextRunAt: z.number().nullable(),
  runs: z.number(),
});
const oneAnswer = z.object({ job: jobSchema });
const listAnswer = z.object({ jobs: z.array(jobSchema) });

/**
 * `cron_add`, `cron_list` and `cron_remove`: the agent schedules messages to itself through the
 * host's cron (at most 20 jobs of its own; jobs from mesh.yaml it can see but not remove).
 */
export function createCronTools(mesh: MeshClient): AgentTool[] {
  const add: AgentTool<z.infer<typeof addInput>> = {
    name: 'cron_add',
    group: 'mesh',
    description:
      'Schedule a message to yourself, once or repeating (reminders, periodic checks). It arrives as a message in your lane.',
    input: addInput,
    run: (input, context) =>
      guardTool(async () => {
        const { job } = oneAnswer.parse(
          await mesh.call({
            method: 'POST',
            path: '/mesh/cron',
            body: {
              schedule: input.schedule,
              message: input.message,
              ...(input.timezone ? { timezone: input.timezone } : {}),
            },
            signal: context.signal,
            traceId: context.traceId,
          }),
        );
        return `scheduled ${job.id}: ${describeJob(job)}`;
      }),
  };
  const list: AgentTool<Record<string, never>> = {
    name: 'cron_list',
    group: 'mesh',
    description: 'List your scheduled jobs: id, schedule, next run, message.',
    input: z.object({}),
    run: (_input, context) =>
      guardTool(async () => {
        const { jobs } = listAnswer.parse(
          await mesh.call({
            method: 'GET',
            path: '/mesh/cron',
            signal: context.signal,
            traceId: context.traceId,
          }),
        );
        if (jobs.length === 0) return 'no scheduled jobs';
        return jobs.map((job) => `${job.id}: ${describeJob(job)}`).join('\n');
      }),
  };
  const remove: AgentTool<z.infer<typeof removeInput>> = {
    name: 'cron_remove',
    group: 'mesh',
    description: 'Remove one of your scheduled jobs.',
    input: removeInput,
    run: (input, context) =>
      guardTool(async () => {
        await mesh.call({
          method: 'DELETE',
          path: `/mesh/cron/${encodeURIComponent(input.id)}`,
          signal: context.signal,
          traceId: context.traceId,
        });
        return `removed ${input.id}`;
      }),
  };
  return [add, list, remove] as AgentTool[];
}

function describeJob(job: z.infer<typeof jobSchema>): string {
  const zone = job.timezone ? ` (${job.timezone})` : '';
  const next = job.nextRunAt === null ? 'no further run' : `next ${new Date(job.nextRunAt).toISOString()}`;
  const state = job.paused ? ', paused' : '';
  const from = job.origin === 'agent' ? '' : `, from ${job.origin}`;
  const what = job.heartbeat ? 'heartbeat' : JSON.stringify((job.message ?? '').slice(0, 200));
  return `${job.schedule}${zone}, ${next}, ran ${job.runs} times${state}${from}: ${what}`;
}
