import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { FakeClock } from '@openlegion/infra/clock';
import type { MeshConfigInput, OperatorNotice, WorkflowRunView } from '@openlegion/protocol';
import type { LightMyRequestResponse } from 'fastify';
import { approvalsFeature } from '../src/approvals/index.js';
import type { LaneItem } from '../src/lanes/index.js';
import {
  inMemoryBlackboard,
  inMemoryEvents,
  WORKFLOWS,
  type WorkflowCatalog,
  type WorkflowEngine,
  type WorkflowRepository,
  workflowsFeature,
} from '../src/workflows/index.js';
import { type FeatureTestHost, startFeatureTestHost } from './feature-test-host.js';
import { type ScriptedLanes, type ScriptedReply, scriptedLanes } from './scripted-lanes.js';

export const WORKFLOW_TEST_CONFIG: MeshConfigInput = {
  llm: { providers: { openai: {} } },
  agents: { researcher: {}, writer: {}, checker: {}, backup: {} },
};

export interface WorkflowTestHost extends FeatureTestHost {
  lanes: ScriptedLanes;
  /** The workflows' services as the feature provides them, and the feature's own stop. */
  workflows: {
    engine(): WorkflowEngine;
    catalog(): WorkflowCatalog;
    repository(): WorkflowRepository;
    stop(): Promise<void> | undefined;
  };
  blackboard: ReturnType<typeof inMemoryBlackboard>;
  events: ReturnType<typeof inMemoryEvents>;
  /** The texts of the operator notices, and the notices themselves. */
  notified: string[];
  notices: OperatorNotice[];
  /** Let everything due now happen: promise chains, and timers at the current time. */
  settle(): Promise<void>;
  /** Move the fake clock on, settling after each due timer. */
  advance(ms: number): Promise<void>;
  /** `POST /api/workflows/:name/runs`; the run view. */
  startRun(name: string, inputs?: Record<string, unknown>): Promise<WorkflowRunView>;
  view(run: string): Promise<WorkflowRunView>;
  post(url: string, payload?: unknown): Promise<LightMyRequestResponse>;
}

/** Write workflow files into a fresh folder; returns it. */
export function workflowDir(
  files: Record<string, string>,
  dir = mkdtempSync(path.join(tmpdir(), 'workflows-')),
): string {
  for (const [name, text] of Object.entries(files)) writeFileSync(path.join(dir, name), text);
  return dir;
}

/** The workflows feature over scripted lanes (its approvals in the host's one list), in a real host app with a fake clock. */
export async function startWorkflowTestHost(options: {
  dir: string;
  respond?: (item: LaneItem) => ScriptedReply;
  dbFile?: string;
  clock?: FakeClock;
  agentWaitMs?: number;
  blackboard?: ReturnType<typeof inMemoryBlackboard>;
}): Promise<WorkflowTestHost> {
  const lanes = scriptedLanes(options.respond);
  const blackboard = options.blackboard ?? inMemoryBlackboard();
  const events = inMemoryEvents();
  const notices: OperatorNotice[] = [];
  const notified: string[] = [];
  const workflows = workflowsFeature({
    lanes,
    blackboard,
    events,
    notify: (notice) => {
      notices.push(notice);
      notified.push(notice.text);
    },
    dir: options.dir,
    approvals: true,
    ...(options.agentWaitMs === undefined ? {} : { agentWaitMs: options.agentWaitMs }),
  });
  const host = await startFeatureTestHost([lanes, approvalsFeature(), workflows], WORKFLOW_TEST_CONFIG, {
    ...(options.dbFile ? { dbFile: options.dbFile } : {}),
    ...(options.clock ? { clock: options.clock } : {}),
  });
  const settle = async () => {
    for (let round = 0; round < 5; round++) {
      await new Promise((resolve) => setImmediate(resolve));
      await host.clock.advance(0);
    }
  };
  const post = (url: string, payload?: unknown) =>
    host.app.inject({
      method: 'POST',
      url,
      headers: { ...host.operatorAuth, 'content-type': 'application/json' },
      payload: JSON.stringify(payload ?? {}),
    });
  return {
    ...host,
    lanes,
    workflows: {
      engine: () => host.service(WORKFLOWS).engine,
      catalog: () => host.service(WORKFLOWS).catalog,
      repository: () => host.service(WORKFLOWS).repository,
      stop: async () => {
        await host.features.find(({ name }) => name === 'workflows')?.stop?.();
      },
    },
    blackboard,
    events,
    notified,
    notices,
    settle,
    async advance(ms) {
      const until = host.clock.now() + ms;
      while (host.clock.now() < until) {
        await host.clock.advance(Math.min(250, until - host.clock.now()));
        await settle();
      }
    },
    async startRun(name, inputs = {}) {
      const response = await post(`/api/workflows/${name}/runs`, { inputs });
      if (response.statusCode !== 201)
        throw new Error(`starting ${name}: ${response.statusCode} ${response.body}`);
      await settle();
      return (response.json() as { run: WorkflowRunView }).run;
    },
    async view(run) {
      const response = await host.app.inject({
        method: 'GET',
        url: `/api/workflows/runs/${run}`,
        headers: host.operatorAuth,
      });
      return (response.json() as { run: WorkflowRunView }).run;
    },
    post,
  };
}

/** Each step's state, by id. */
export const statesOf = (run: WorkflowRunView) =>
  Object.fromEntries(run.steps.map((step) => [step.id, step.state]));
