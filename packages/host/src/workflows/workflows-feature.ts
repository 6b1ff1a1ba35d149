import { APPROVALS } from '../approvals/index.js';
import { BLACKBOARD } from '../blackboard/index.js';
import { formatConfigProblem } from '../config/index.js';
import { USAGE_RECORDED } from '../costs/index.js';
import {
  eventKey,
  type FeatureContext,
  type FeatureParts,
  type HostFeature,
  serviceKey,
} from '../features/index.js';
import { LANES } from '../lanes/index.js';
import { PUBSUB } from '../pubsub/index.js';
import { WorkflowCatalog } from './definition/workflow-catalog.js';
import { workflowProblems } from './definition/workflow-file.js';
import { WorkflowEngine } from './engine/workflow-engine.js';
import { inMemoryBlackboard } from './in-memory-ports.js';
import { meshBlackboard } from './mesh-blackboard.js';
import { meshEvents } from './mesh-events.js';
import { WORKFLOW_MIGRATIONS } from './store/workflow-migrations.js';
import type { StepRecord } from './store/workflow-records.js';
import { WorkflowRepository } from './store/workflow-repository.js';
import { WorkflowTriggers } from './triggers/workflow-triggers.js';
import { workflowApprovalSource } from './workflow-approval-source.js';
import type { WorkflowBlackboard, WorkflowEvents, WorkflowLanes, WorkflowNotify } from './workflow-ports.js';
import { registerWorkflowRoutes } from './workflow-routes.js';

export interface WorkflowsFeatureOptions {
  /** Each step is an item in its agent's lane: these lanes, or without them the lanes feature's. */
  lanes?: WorkflowLanes;
  /**
   * For `save_to` and `${blackboard:key}`: this one, or with `meshBlackboard` the mesh's (the
   * blackboard feature's); without either, an in-memory board that lasts the host's run.
   */
  blackboard?: WorkflowBlackboard;
  /** Read and write the mesh's blackboard (needs the blackboard feature). */
  meshBlackboard?: boolean;
  /** Be triggered by and publish to the mesh's pub/sub (needs the pubsub feature), unless `events` is given. */
  meshEvents?: boolean;
  /** For topic triggers and `on_complete.publish`; without one, topic triggers are ignored (with a warning). */
  events?: WorkflowEvents;
  /** For `on_complete.notify` and approvals that wait (the operator's channel). */
  notify?: WorkflowNotify;
  /** Notify through the host's operator notices (its channels hear them), unless `notify` is given. */
  operatorNotices?: boolean;
  /** Offer steps that wait through the host's one list of approvals (needs the approvals feature). */
  approvals?: boolean;
  /** The folder of workflow files, instead of mesh.yaml's `workflows:` (tests). */
  dir?: string;
  /** How long a step waits for a stopped agent when it has no timeout (default 5 minutes). */
  agentWaitMs?: number;
  /** How steps reach their agents: `chat` (default; POST /chat, a fresh conversation per step) or `task` (POST /task). */
  stepKind?: 'chat' | 'task';
}

/** What other parts of the host (the operator's channels, tests) use of the workflows. */
export interface Workflows {
  readonly engine: WorkflowEngine;
  readonly catalog: WorkflowCatalog;
  readonly repository: WorkflowRepository;
}

/** A step row of a run was written: created, started, retried, settled. */
export const WORKFLOW_STEP_CHANGED = eventKey<StepRecord>('workflows.step-changed');

/** The workflows' engine, catalog and runs. */
export const WORKFLOWS = serviceKey<Workflows>('workflows');

/**
 * DAG workflow files (`workflows/*.yaml`): runs persisted in mesh.db, each step a task in its
 * agent's lane, resumed after a restart; started by the operator, a pub/sub topic or a schedule.
 */
export function workflowsFeature(options: WorkflowsFeatureOptions = {}): HostFeature {
  const build = (context: FeatureContext): FeatureParts => {
    // Every step row written is a fact on the host's bus (a dashboard, a channel may follow runs).
    const repo = new WorkflowRepository(context.db, (step) =>
      context.events.emit(WORKFLOW_STEP_CHANGED, step),
    );
    const logger = context.logger.child({ component: 'workflows' });
    const lanes = options.lanes ?? context.need(LANES);
    const notify = options.notify ?? (options.operatorNotices ? context.notices.publish : undefined);
    const blackboard =
      options.blackboard ??
      (options.meshBlackboard
        ? meshBlackboard(context.need(BLACKBOARD), context.logger)
        : inMemoryBlackboard());
    const events =
      options.events ?? (options.meshEvents ? meshEvents(context.need(PUBSUB), context.logger) : undefined);
    const engine = new WorkflowEngine({
      repo,
      lanes,
      clock: context.clock,
      logger,
      blackboard,
      ...(events ? { events } : {}),
      ...(notify ? { notify } : {}),
      ...(options.agentWaitMs === undefined ? {} : { agentWaitMs: options.agentWaitMs }),
      ...(options.stepKind ? { stepKind: options.stepKind } : {}),
    });
    const dir =
      options.dir ?? (context.config.workflows ? context.resolvePath(context.config.workflows) : undefined);
    const catalog = new WorkflowCatalog(dir, Object.keys(context.config.agents));
    const triggers = new WorkflowTriggers({
      db: context.db,
      clock: context.clock,
      logger,
      ...(events ? { events } : {}),
      startRun: (request) => engine.startRun(request),
    });
    // Registered before any feature starts: results the lanes deliver at their start reach the engine.
    lanes.deliverTo('workflow', (item) => engine.laneResult(item));
    // A step's cost: the calls its agent made under the step's lane item's trace id.
    context.events.on(USAGE_RECORDED, (usage) => {
      const item = usage.trace_id ? lanes.byTrace?.(usage.trace_id, usage.agent) : undefined;
      if (item?.source === 'workflow' && item.sourceRef) repo.addCost(item.sourceRef, usage.cost_usd);
    });
    if (options.approvals) context.need(APPROVALS).addSource(workflowApprovalSource(engine, repo));
    context.provide(WORKFLOWS, { engine, catalog, repository: repo });
    return {
      routes: (app) =>
        registerWorkflowRoutes(app, {
          engine: () => engine,
          catalog: () => catalog,
          repo: () => repo,
          now: () => context.clock.now(),
        }),
      async start() {
        await engine.start();
        const workflows = await catalog.valid((error) => {
          const lines = workflowProblems(error)?.map(formatConfigProblem) ?? [error.message];
          context.warn(`workflow file not loaded: ${lines.join('; ')}`);
        });
        triggers.start(workflows);
      },
      async stop() {
        await triggers.stop();
        await engine.stop();
      },
    };
  };

  return {
    name: 'workflows',
    migrations: WORKFLOW_MIGRATIONS,
    needs: [
      ...(options.lanes ? [] : [LANES]),
      ...(options.meshBlackboard ? [BLACKBOARD] : []),
      ...(options.meshEvents ? [PUBSUB] : []),
      ...(options.approvals ? [APPROVALS] : []),
    ],
    provides: [WORKFLOWS],
    build,
  };
}
