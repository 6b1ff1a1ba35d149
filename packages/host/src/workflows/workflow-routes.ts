import { parseRequest } from '@openlegion/infra/http';
import {
  OpenLegionError,
  workflowDecisionRequestSchema,
  workflowRunRequestSchema,
} from '@openlegion/protocol';
import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import type { WorkflowCatalog } from './definition/workflow-catalog.js';
import type { WorkflowEngine } from './engine/workflow-engine.js';
import { runSummary, runView } from './store/run-view.js';
import type { WorkflowRepository } from './store/workflow-repository.js';

const nameParams = z.object({ name: z.string().min(1) });
const runParams = z.object({ run: z.string().min(1) });
const stepParams = runParams.extend({ step: z.string().min(1) });
const runsQuery = z.object({
  workflow: z.string().min(1).optional(),
  limit: z.coerce.number().int().min(1).max(500).default(20),
});

interface WorkflowRouteDeps {
  engine: () => WorkflowEngine;
  catalog: () => WorkflowCatalog;
  repo: () => WorkflowRepository;
  now: () => number;
}

/** `/api/workflows/*`: the operator lists workflows, starts, follows, cancels, approves and rejects runs. */
export function registerWorkflowRoutes(app: FastifyInstance, deps: WorkflowRouteDeps): void {
  const operator = { auth: 'operator' } as const;
  const view = (id: string) => {
    const run = deps.repo().run(id);
    if (!run)
      throw new OpenLegionError('WORKFLOW_RUN_UNKNOWN', `no workflow run "${id}"`, { details: { run: id } });
    return runView(run, deps.repo().steps(id), deps.now());
  };

  app.get('/api/workflows', { config: operator }, async () => ({ workflows: await deps.catalog().list() }));

  app.post('/api/workflows/:name/runs', { config: operator }, async (request, reply) => {
    const { name } = parseRequest(nameParams, request.params, 'params');
    const { inputs } = parseRequest(workflowRunRequestSchema, request.body ?? {});
    const workflow = await deps.catalog().load(name);
    const run = await deps.engine().startRun({ workflow, inputs });
    return reply.code(201).send({ run: view(run.id) });
  });

  app.get('/api/workflows/runs', { config: operator }, async (request) => {
    const { workflow, limit } = parseRequest(runsQuery, request.query, 'query');
    return { runs: deps.repo().recentRuns(limit, workflow).map(runSummary) };
  });

  app.get('/api/workflows/approvals', { config: operator }, async () => ({
    approvals: deps.repo().pendingApprovals(),
  }));

  app.get('/api/workflows/runs/:run', { config: operator }, async (request) => {
    const { run } = parseRequest(runParams, request.params, 'params');
    return { run: view(run) };
  });

  app.post('/api/workflows/runs/:run/cancel', { config: operator }, async (request) => {
    const { run } = parseRequest(runParams, request.params, 'params');
    await deps.engine().cancel(run);
    return { run: view(run) };
  });

  for (const decision of ['approve', 'reject'] as const) {
    app.post(`/api/workflows/runs/:run/steps/:step/${decision}`, { config: operator }, async (request) => {
      const { run, step } = parseRequest(stepParams, request.params, 'params');
      const { note } = parseRequest(workflowDecisionRequestSchema, request.body ?? {});
      await deps.engine()[decision](run, step, note);
      return { run: view(run) };
    });
  }
}
