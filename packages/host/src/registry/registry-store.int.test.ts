import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openDatabase, schemaVersion } from '@openlegion/infra/sqlite';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { AgentRow } from './agents-repository.js';
import { REGISTRY_MIGRATIONS } from './registry-migrations.js';
import { openRegistryStore } from './registry-store.js';

const agentRow: AgentRow = {
  name: 'a',
  state: 'starting',
  runtime: 'process',
  container: null,
  url: 'http://127.0.0.1:8401',
  startedAt: '2025-01-01T00:00:00.000Z',
  readyAt: null,
  stoppedAt: null,
  lastError: null,
};

describe('openRegistryStore', () => {
  let dir: string;
  let path: string;
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'ol-store-'));
    path = join(dir, 'mesh.db');
  });
  afterEach(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('re-opens an existing database without re-applying migrations or losing rows', () => {
    const first = openRegistryStore(path);
    first.agents.upsert(agentRow);
    first.db.close();
    const second = openRegistryStore(path);
    expect(schemaVersion(second.db, 'agents')).toBe(REGISTRY_MIGRATIONS.length);
    expect(second.agents.get('a')).toEqual(agentRow);
    second.db.close();
  });

  it('keeps the agents of a mesh.db made before per-feature migrations (user_version 1)', () => {
    const legacy = openDatabase(path);
    legacy.exec(REGISTRY_MIGRATIONS[0] ?? '');
    legacy.pragma('user_version = 1');
    legacy.close();
    const store = openRegistryStore(path);
    store.agents.upsert(agentRow);
    expect(store.agents.list()).toEqual([agentRow]);
    expect(schemaVersion(store.db, 'agents')).toBe(1);
    store.db.close();
  });

  it('refuses a database from a newer schema', () => {
    const store = openRegistryStore(path);
    store.db.prepare("UPDATE schema_migrations SET version = 99 WHERE feature = 'agents'").run();
    store.db.close();
    expect(() => openRegistryStore(path)).toThrow(/newer than this code knows/);
  });

  it('enforces foreign keys', () => {
    const store = openRegistryStore(path);
    expect(() => store.runs.start('nobody', '2025-01-01T00:00:00.000Z')).toThrow(/FOREIGN KEY/);
    store.db.close();
  });

  it('records state transitions and runs through the repositories', () => {
    const store = openRegistryStore(path);
    store.agents.upsert(agentRow);
    const run = store.runs.start('a', agentRow.startedAt ?? '');
    store.agents.setState('a', 'ready', { readyAt: '2025-01-01T00:00:01.000Z' });
    store.runs.markReady(run, '2025-01-01T00:00:01.000Z');
    store.agents.setState('a', 'failed', { lastError: 'boom', stoppedAt: '2025-01-01T00:00:02.000Z' });
    store.runs.finish(run, '2025-01-01T00:00:02.000Z', 'failed');
    expect(store.agents.list()).toEqual([
      {
        ...agentRow,
        state: 'failed',
        readyAt: '2025-01-01T00:00:01.000Z',
        stoppedAt: '2025-01-01T00:00:02.000Z',
        lastError: 'boom',
      },
    ]);
    expect(store.runs.listFor('a')).toEqual([
      {
        id: run,
        agent: 'a',
        startedAt: agentRow.startedAt,
        readyAt: '2025-01-01T00:00:01.000Z',
        stoppedAt: '2025-01-01T00:00:02.000Z',
        outcome: 'failed',
      },
    ]);
    store.db.close();
  });
});
