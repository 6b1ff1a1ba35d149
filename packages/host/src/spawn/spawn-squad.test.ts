import { FakeClock } from '@openlegion/infra/clock';
import { createLogger } from '@openlegion/infra/log';
import { migrate, openDatabase } from '@openlegion/infra/sqlite';
import {
  createLocalEmbedder,
  estimateTokens,
  SESSION_MEMORY_INSTRUCTION,
  SQUAD_LAYER_BUDGETS,
  type SquadLayer,
} from '@openlegion/memory';
import { type MeshConfig, type MeshConfigInput, meshConfigSchema } from '@openlegion/protocol';
import { pino } from 'pino';
import { afterEach, describe, expect, it } from 'vitest';
import type { LaneItem, LaneRequest } from '../lanes/index.js';
import { SharedMemoryStore } from '../memory/index.js';
import { MeshPermissions } from '../permissions/index.js';
import { SPAWN_MIGRATIONS, SpawnRepository } from './spawn-repository.js';
import { SpawnService } from './spawn-service.js';
import { SpawnSquads } from './spawn-squad.js';

const SQUAD = 'squad:research';
const CONFIG: MeshConfigInput = {
  llm: { providers: { openai: {} } },
  agents: {
    lead: {
      permissions: { spawn: ['*'], memory: { read: ['squad:*'], write: [SQUAD] } },
    },
    reader: { permissions: { spawn: ['*'], memory: { read: [SQUAD] } } },
    plain: { permissions: { spawn: ['*'] } },
  },
  templates: {
    researcher: { role: 'Finds one fact', tools: 'minimal', squad: 'research' },
    writer: { tools: 'minimal' },
  },
  limits: { temporary_agents_per_agent: 5, temporary_agents: 5, temporary_agent_ttl_s: 60 },
};

const stores: SharedMemoryStore[] = [];
afterEach(() => {
  for (const store of stores.splice(0)) store.close();
});

/** Let the launches' awaits run (no timers: the service's own promises only). */
const flush = async () => {
  for (let turn = 0; turn < 20; turn++) await Promise.resolve();
};

/** The service over an in-memory mesh.db and shared memory store; lanes and fleet only record. */
function setUp(options: { itemsPerAgent?: number } = {}) {
  const config = meshConfigSchema.parse(CONFIG) as MeshConfig;
  const db = openDatabase(':memory:');
  migrate(db, [{ feature: 'spawn', steps: SPAWN_MIGRATIONS }]);
  const clock = new FakeClock(Date.parse('2026-01-01T00:00:00Z'));
  const store = new SharedMemoryStore({
    file: ':memory:',
    embedder: createLocalEmbedder(),
    clock,
    itemsPerAgent: options.itemsPerAgent ?? 1_000,
  });
  store.open();
  stores.push(store);
  const logs: string[] = [];
  const permissions = MeshPermissions.of(config);
  const enqueued: LaneRequest[] = [];
  let suffix = 0;
  const service = new SpawnService({
    config,
    repo: new SpawnRepository(db),
    fleet: { startTemporary: async () => {}, removeTemporary: async () => {} },
    lanes: {
      enqueue: async (request) => {
        enqueued.push(request);
        return { item: { id: enqueued.length } as LaneItem, outcome: 'queued' };
      },
      cancel: () => {},
    },
    permissions,
    clock,
    logger: createLogger({ level: 'silent' }),
    squads: new SpawnSquads({
      store,
      permissions,
      logger: pino({ level: 'info' }, { write: (line: string) => logs.push(line) }),
    }),
    suffix: () => (suffix++).toString(16).padStart(4, '0'),
  });
  service.open();
  /** The temporary agent's task item ends `done` with `answer`. */
  const finish = (agent: string, answer: string) =>
    service.onItemSettled({
      agent,
      sourceRef: agent,
      state: 'done',
      resultText: answer,
      errorCode: null,
      errorMessage: null,
    } as LaneItem);
  const items = (category: SquadLayer) =>
    store
      .list(SQUAD, 1_000, 0)
      .filter((item) => item.category === category)
      .map((item) => ({ content: item.content, writer: item.writer }));
  return { config, store, service, enqueued, finish, items, logs };
}

/** An answer with a Session Memory section of `lessons`. */
const answer = (...lessons: string[]) =>
  ['The tide is at 06:12.', '## Session Memory', ...lessons.map((lesson) => `- ${lesson}`)].join('\n');

describe('fleet spawn with a squad', () => {
  it("starts the agent with the squad's memory for its template and task, each layer within its budget", async () => {
    const { store, service, enqueued } = setUp();
    for (let i = 0; i < 80; i++) {
      await store.save(SQUAD, null, {
        content: `We review every change in pairs, rule ${i}.`,
        category: 'process',
      });
      await store.save(SQUAD, null, {
        content: `[ALL] Program lesson ${i} about harbours.`,
        category: 'program',
      });
      await store.save(SQUAD, 'lead', {
        content: `[RESEARCHER] Episode ${i} tide note (session s${i})`,
        category: 'episodic',
      });
    }
    await store.save(SQUAD, null, { content: '[WRITER] Keep drafts under 200 words.', category: 'program' });

    const agent = service.spawn(
      { template: 'researcher', task: 'find the tide table for Porto' },
      { origin: 'agent', spawner: 'lead' },
    );
    expect(agent).toMatchObject({ squad: 'research', task: 'find the tide table for Porto' });
    await flush();
    const message = enqueued[0]?.message ?? '';
    expect(message.startsWith('<untrusted source="squad memory research">\nprocess:\n- We review')).toBe(
      true,
    );
    expect(message).toContain(
      `</untrusted>\n\n${SESSION_MEMORY_INSTRUCTION} Your ROLE for those lessons is RESEARCHER.\n\nfind the tide table for Porto`,
    );
    expect(message).not.toContain('Keep drafts'); // another role's lesson
    const block = message.slice(0, message.indexOf('</untrusted>'));
    for (const layer of Object.keys(SQUAD_LAYER_BUDGETS) as SquadLayer[]) {
      const text = new RegExp(`^${layer}:\\n(?:- .*\\n?)+`, 'm').exec(block)?.[0] ?? '';
      expect(text, layer).not.toBe('');
      expect(estimateTokens(text), layer).toBeLessThanOrEqual(SQUAD_LAYER_BUDGETS[layer]);
    }
    // The squad shows on the agent's view; the config's agent has no squad field.
    expect(service.get(agent.name, 'lead').squad).toBe('research');
  });

  it("takes the template's squad by default, the request's over it, and none for a template without one", async () => {
    const { config, service, enqueued } = setUp();
    const operator = { origin: 'operator' } as const;
    expect(service.spawn({ template: 'writer', task: 'draft it' }, operator).squad).toBeUndefined();
    expect(service.spawn({ template: 'writer', task: 'draft it', squad: 'docs' }, operator).squad).toBe(
      'docs',
    );
    expect(service.spawn({ template: 'researcher', task: 'find it' }, operator).squad).toBe('research');
    await flush();
    expect(enqueued[0]?.message).toBe('draft it');
    expect(enqueued[1]?.message).toContain(SESSION_MEMORY_INSTRUCTION); // an empty squad: no block
    expect(enqueued[1]?.message.startsWith(SESSION_MEMORY_INSTRUCTION)).toBe(true);
    expect(config.agents['researcher-0002']).not.toHaveProperty('squad');
  });

  it("captures a done run's lessons as episodic entries written by the spawner, and distills on the 3rd session", async () => {
    const { service, finish, items } = setUp();
    const lead = { origin: 'agent', spawner: 'lead' } as const;
    for (const [i, extra] of ['One-off A.', 'One-off B.', 'One-off C.'].entries()) {
      const agent = service.spawn({ template: 'researcher', task: 'find the tides' }, lead);
      await flush();
      await finish(agent.name, answer('[RESEARCHER] Tide tables are a day ahead.', `[RESEARCHER] ${extra}`));
      expect(items('program'), `after session ${i + 1}`).toEqual(
        i < 2 ? [] : [{ content: '[RESEARCHER] Tide tables are a day ahead.', writer: 'lead' }],
      );
    }
    expect(items('episodic').slice(0, 2)).toEqual([
      { content: '[RESEARCHER] Tide tables are a day ahead. (session researcher-0000)', writer: 'lead' },
      { content: '[RESEARCHER] One-off A. (session researcher-0000)', writer: 'lead' },
    ]);
    expect(items('episodic')).toHaveLength(6);
    await service.idle();
    expect(service.get('researcher-0002')).toMatchObject({ state: 'done', squad: 'research' });
  });

  it('captures nothing from a run that failed, or from a done run without a squad', async () => {
    const { service, finish, items } = setUp();
    const operator = { origin: 'operator' } as const;
    const failed = service.spawn({ template: 'researcher', task: 'find it' }, operator);
    await flush();
    await service.onItemSettled({
      agent: failed.name,
      sourceRef: failed.name,
      state: 'failed',
      resultText: answer('[ALL] never kept'),
      errorCode: 'LLM_UNAVAILABLE',
      errorMessage: 'down',
    } as LaneItem);
    const plain = service.spawn({ template: 'writer', task: 'draft it' }, operator);
    await flush();
    await finish(plain.name, answer('[ALL] not a squad run'));
    expect(items('episodic')).toEqual([]);
  });

  it('refuses an agent spawner without permissions.memory read and write on the squad, before anything starts', async () => {
    const { service, enqueued } = setUp();
    expect(() =>
      service.spawn({ template: 'researcher', task: 't' }, { origin: 'agent', spawner: 'plain' }),
    ).toThrow(
      expect.objectContaining({
        code: 'MESH_FORBIDDEN',
        message:
          'agent "plain" may not memory read "squad:research": agents.plain.permissions.memory.read in mesh.yaml is []; add "squad:research" to agents.plain.permissions.memory.read in mesh.yaml to allow it',
      }),
    );
    expect(() =>
      service.spawn(
        { template: 'writer', task: 't', squad: 'research' },
        { origin: 'agent', spawner: 'reader' },
      ),
    ).toThrow(
      expect.objectContaining({
        code: 'MESH_FORBIDDEN',
        message:
          'agent "reader" may not memory write "squad:research": agents.reader.permissions.memory.write in mesh.yaml is []; add "squad:research" to agents.reader.permissions.memory.write in mesh.yaml to allow it',
      }),
    );
    await flush();
    expect(service.list()).toEqual([]);
    expect(enqueued).toEqual([]);
    // The operator (and cron) need no permission.
    expect(service.spawn({ template: 'researcher', task: 't' }, { origin: 'operator' }).squad).toBe(
      'research',
    );
  });

  it("logs a capture that fails and writes none of the session's lessons; the run stays done", async () => {
    const { service, finish, items, logs } = setUp({ itemsPerAgent: 1 });
    const agent = service.spawn(
      { template: 'researcher', task: 'find it' },
      { origin: 'agent', spawner: 'lead' },
    );
    await flush();
    await expect(finish(agent.name, answer('[ALL] first', '[ALL] second'))).resolves.toBeUndefined();
    expect(items('episodic')).toEqual([]);
    expect(service.get(agent.name)).toMatchObject({ state: 'done' });
    const logged = logs.map((line) => JSON.parse(line) as { msg: string; err?: { code?: string } });
    expect(logged).toEqual([
      expect.objectContaining({
        msg: "a temporary agent's lessons could not be captured into its squad's memory",
        err: expect.objectContaining({ code: 'MESH_QUOTA_EXCEEDED' }),
      }),
    ]);
  });
});
