import { formatSseEvent, type TaskRequest } from '@openlegion/protocol';
import { describe, expect, it, vi } from 'vitest';
import { startFeatureTestHost } from '../../test/feature-test-host.js';
import { workflowDir } from '../../test/workflow-test-host.js';
import { TokenRegistry } from '../auth/index.js';
import type { HostFeature } from '../features/index.js';
import { type AgentClient, LaneRepository, lanesFeature } from '../lanes/index.js';
import { AGENT_REGISTRY, AgentRegistry } from '../registry/index.js';
import { REGISTRY_MIGRATIONS } from '../registry/registry-migrations.js';
import { registryStore } from '../registry/registry-store.js';
import { WORKFLOWS, workflowsFeature } from './index.js';

const AGENTS = ['researcher', 'writer', 'checker'];

/** Agents that answer each task with an SSE stream ending in `done`, after a moment. */
function answeringAgents(tasks: TaskRequest[]): AgentClient {
  const refuse = () => Promise.reject(new Error('no steers or heartbeats in this test'));
  const answer = async (task: TaskRequest) => {
    tasks.push(task);
    await new Promise((resolve) => setTimeout(resolve, 20));
    const text = `did(${task.task})`;
    const body = [
      formatSseEvent({ type: 'text_delta', text }),
      formatSseEvent({ type: 'done', conversation_id: task.conversation_id ?? 'default', text }),
    ].join('');
    return new Response(body, { headers: { 'content-type': 'text/event-stream' } });
  };
  return {
    relayChat: (_url, _token, chat) => answer({ task: chat.message, conversation_id: chat.conversation_id }),
    relayTask: (_url, _token, task) => answer({ ...task, task: `[task] ${task.task}` }),
    steer: refuse,
    heartbeat: refuse,
  };
}

describe('workflows over the real lanes', () => {
  it.each([
    ['chat', undefined, 'chat'],
    ['task', 'task', 'task'],
  ] as const)(
    'hands each step to its agent (as a %s) through its lane, and gets the results back',
    async (_kind, stepKind, laneKind) => {
      const tasks: TaskRequest[] = [];
      const tokens = new TokenRegistry();
      // The host's registry with every agent ready, as after `openlegion start`.
      const agents: HostFeature = {
        name: 'agents',
        migrations: REGISTRY_MIGRATIONS,
        provides: [AGENT_REGISTRY],
        build(context) {
          const registry = new AgentRegistry({ store: registryStore(context.db), clock: context.clock });
          for (const name of AGENTS) {
            registry.register({
              name,
              runtime: 'process',
              model: 'openai/m',
              url: `http://127.0.0.1:9/${name}`,
            });
            registry.markReady(name);
            tokens.mint(name);
          }
          context.provide(AGENT_REGISTRY, registry);
          return {};
        },
      };
      const lanes = lanesFeature({ agentClient: answeringAgents(tasks) });
      const workflows = workflowsFeature({
        ...(stepKind ? { stepKind } : {}),
        dir: workflowDir({
          'd.yaml': `
name: d
steps:
  - { id: a, agent: researcher, task: a }
  - { id: b, agent: writer, task: "b \${steps.a.output}", depends_on: a }
  - { id: c, agent: checker, task: "c \${steps.a.output}", depends_on: a }
  - { id: e, agent: writer, task: "e \${steps.b.output} \${steps.c.output}", depends_on: [b, c] }
`,
        }),
      });
      const host = await startFeatureTestHost(
        [agents, lanes, workflows],
        { llm: { providers: { openai: {} } }, agents: Object.fromEntries(AGENTS.map((name) => [name, {}])) },
        { tokens },
      );
      const { engine, catalog, repository } = host.service(WORKFLOWS);
      const run = await engine.startRun({ workflow: await catalog.load('d') });
      await vi.waitFor(() => expect(repository.run(run.id)?.state).toBe('succeeded'), {
        timeout: 5_000,
      });
      // What each agent was asked; a task's text reaches the stand-in marked, so the marks nest.
      const t = laneKind === 'task' ? '[task] ' : '';
      expect(tasks.map((task) => task.task).sort()).toEqual([
        `${t}a`,
        `${t}b did(${t}a)`,
        `${t}c did(${t}a)`,
        `${t}e did(${t}b did(${t}a)) did(${t}c did(${t}a))`,
      ]);
      expect(new Set(tasks.map((task) => task.conversation_id)).size).toBe(4);
      const items = new LaneRepository(host.context.db).recent(10).reverse();
      expect(items.map((item) => [item.agent, item.kind, item.source, item.state]).sort()).toEqual([
        ['checker', laneKind, 'workflow', 'done'],
        ['researcher', laneKind, 'workflow', 'done'],
        ['writer', laneKind, 'workflow', 'done'],
        ['writer', laneKind, 'workflow', 'done'],
      ]);
      expect(new Set(items.map((item) => item.traceId)).size).toBe(1);
      expect(items.every((item) => item.deliveredAt !== null)).toBe(true);
      await host.stop();
    },
  );
});
