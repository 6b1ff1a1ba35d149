import { FakeClock } from '@openlegion/infra/clock';
import { createLogger } from '@openlegion/infra/log';
import { migrate, openDatabase } from '@openlegion/infra/sqlite';
import { type MeshConfig, meshConfigSchema } from '@openlegion/protocol';
import { describe, expect, it } from 'vitest';
import { BillingOwners } from '../costs/index.js';
import { COST_MIGRATIONS } from '../costs/usage-log.js';
import { EventBus } from '../features/index.js';
import { TEMPORARY_AGENT_JOINED } from '../fleet/index.js';
import type { LaneItem } from '../lanes/index.js';
import { MeshPermissions } from '../permissions/index.js';
import { SPAWN_MIGRATIONS, SpawnRepository, SpawnService } from '../spawn/index.js';
import { PUBSUB_MIGRATIONS } from './pubsub-migrations.js';
import { PubsubStore } from './pubsub-store.js';
import { followTemporaryAgents } from './temporary-agent-subscriptions.js';

/**
 * A temporary agent's life as the spawn feature announces it on the host's bus, heard by pub/sub
 * (its template's subscriptions) and costs (who pays): a real spawn service, bus and stores over
 * one in-memory mesh.db.
 */
function setUp() {
  const config = meshConfigSchema.parse({
    llm: { providers: { openai: {} } },
    agents: { lead: { permissions: { spawn: ['*'], pubsub: { subscribe: ['lead.*'] } } } },
    templates: {
      watcher: {
        permissions: { pubsub: { subscribe: ['research.*', 'news.**'] } },
        subscriptions: [{ pattern: 'research.done' }, { pattern: 'news.**', delivery: 'stream' }],
      },
    },
  }) as MeshConfig;
  const db = openDatabase(':memory:');
  migrate(db, [
    { feature: 'spawn', steps: SPAWN_MIGRATIONS },
    { feature: 'pubsub', steps: PUBSUB_MIGRATIONS },
    { feature: 'costs', steps: COST_MIGRATIONS },
  ]);
  const logger = createLogger({ level: 'silent' });
  const clock = new FakeClock(Date.parse('2026-01-01T00:00:00Z'));
  const events = new EventBus(logger);
  const store = new PubsubStore(db, config.limits);
  const warnings: string[] = [];
  const permissions = MeshPermissions.of(config);
  followTemporaryAgents({
    events,
    config,
    permissions,
    store,
    now: () => clock.now(),
    warn: (message) => warnings.push(message),
  });
  const owners = new BillingOwners(db);
  events.on(TEMPORARY_AGENT_JOINED, ({ name, spawner }) => owners.assign(name, spawner, clock.now()));
  let suffix = 0;
  const service = new SpawnService({
    config,
    repo: new SpawnRepository(db),
    fleet: { startTemporary: async () => {}, removeTemporary: async () => {} },
    lanes: {
      enqueue: async () => ({ item: { id: 1 } as LaneItem, outcome: 'queued' }),
      cancel: () => {},
    },
    permissions,
    clock,
    logger,
    events,
    suffix: () => (suffix++).toString(16).padStart(4, '0'),
  });
  service.open();
  const subscriptions = (agent?: string) =>
    store
      .subscriptions(agent)
      .map(({ agent: who, pattern, delivery }) => ({ agent: who, pattern, delivery }));
  const finish = async (agent: string) => {
    await service.onItemSettled({
      agent,
      sourceRef: agent,
      state: 'done',
      resultText: 'done',
      errorCode: null,
      errorMessage: null,
    } as LaneItem);
    await service.idle();
  };
  return { config, db, store, service, owners, subscriptions, finish, warnings };
}

describe('temporary agents and pub/sub', () => {
  it("subscribes a temporary agent to its template's subscriptions as it is spawned, and deletes every subscription of it when it ends", async () => {
    const { service, store, subscriptions, finish, warnings } = setUp();
    store.subscribe('lead', 'lead.inbox', 'lane', 0);
    const agent = service.spawn({ template: 'watcher', task: 'watch' }, { origin: 'agent', spawner: 'lead' });
    expect(agent.name).toBe('watcher-0000');
    expect(subscriptions('watcher-0000')).toEqual([
      { agent: 'watcher-0000', pattern: 'research.done', delivery: 'lane' },
      { agent: 'watcher-0000', pattern: 'news.**', delivery: 'stream' },
    ]);
    // One it made itself while it ran goes with it too.
    store.subscribe('watcher-0000', 'research.started', 'lane', 0);
    await finish('watcher-0000');
    expect(service.get('watcher-0000').state).toBe('done');
    expect(subscriptions()).toEqual([{ agent: 'lead', pattern: 'lead.inbox', delivery: 'lane' }]);
    expect(warnings).toEqual([]);
  });

  it('gives each temporary agent of a template its own subscriptions, removed with it alone', async () => {
    const { service, subscriptions, finish } = setUp();
    service.spawn({ template: 'watcher', task: 'one' }, { origin: 'operator' });
    service.spawn({ template: 'watcher', task: 'two' }, { origin: 'operator' });
    expect(subscriptions().map(({ agent, pattern }) => `${agent} ${pattern}`)).toEqual([
      'watcher-0000 research.done',
      'watcher-0000 news.**',
      'watcher-0001 research.done',
      'watcher-0001 news.**',
    ]);
    await finish('watcher-0000');
    expect(subscriptions().map(({ agent, pattern }) => `${agent} ${pattern}`)).toEqual([
      'watcher-0001 research.done',
      'watcher-0001 news.**',
    ]);
  });

  it('removes the subscriptions of a run a killed host left, when the next start ends it', async () => {
    const { db, store, subscriptions } = setUp();
    db.prepare(
      `INSERT INTO temporary_agents (name, template, spawner, origin, task, state, created_at, expires_at)
       VALUES ('watcher-dead', 'watcher', 'lead', 'agent', 'watch', 'running', 0, 600000)`,
    ).run();
    store.subscribe('watcher-dead', 'research.done', 'lane', 0);
    // The next host run's service over the same mesh.db ends it at open.
    const next = setUpOver(db);
    await next.idle();
    expect(subscriptions()).toEqual([]);
  });
});

describe('temporary agents and costs', () => {
  it("bills an agent's temporary agent to its spawner, and one of the operator or cron to itself, kept after it ends", async () => {
    const { service, owners, finish, config } = setUp();
    service.spawn({ template: 'watcher', task: 'a' }, { origin: 'agent', spawner: 'lead' });
    service.spawn({ template: 'watcher', task: 'b' }, { origin: 'operator' });
    expect(owners.ownerOf('watcher-0000')).toBe('lead');
    expect(owners.ownerOf('watcher-0001')).toBe('watcher-0001');
    await finish('watcher-0000');
    expect(Object.hasOwn(config.agents, 'watcher-0000')).toBe(false);
    owners.forget('watcher-0000');
    expect(owners.ownerOf('watcher-0000')).toBe('lead');
  });
});

/** A spawn service of a later host run over `db`, announcing on a bus pub/sub hears. */
function setUpOver(db: ReturnType<typeof openDatabase>): SpawnService {
  const config = meshConfigSchema.parse({
    llm: { providers: { openai: {} } },
    agents: { lead: {} },
    templates: { watcher: {} },
  }) as MeshConfig;
  const logger = createLogger({ level: 'silent' });
  const clock = new FakeClock(Date.parse('2026-01-01T01:00:00Z'));
  const events = new EventBus(logger);
  const permissions = MeshPermissions.of(config);
  followTemporaryAgents({
    events,
    config,
    permissions,
    store: new PubsubStore(db, config.limits),
    now: () => clock.now(),
    warn: () => {},
  });
  const service = new SpawnService({
    config,
    repo: new SpawnRepository(db),
    fleet: { startTemporary: async () => {}, removeTemporary: async () => {} },
    lanes: { enqueue: async () => ({ item: { id: 1 } as LaneItem, outcome: 'queued' }), cancel: () => {} },
    permissions,
    clock,
    logger,
    events,
  });
  service.open();
  return service;
}
