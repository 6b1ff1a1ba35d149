import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type AgentRow, MIGRATIONS, openStore } from './index.js';

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

describe('openStore', () => {
  let dir: string;
  let path: string;
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'ol-store-'));
    path = join(dir, 'mesh.db');
  });
  afterEach(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('applies every migration to a new database', () => {
    const store = openStore(path);
    expect(store.schemaVersion()).toBe(MIGRATIONS.length);
    store.close();
  });

  it('re-opens an existing database without re-applying migrations or losing rows', () => {
    const first = openStore(path);
    first.agents.upsert(agentRow);
    first.close();
    const second = openStore(path);
    expect(second.schemaVersion()).toBe(MIGRATIONS.length);
    expect(second.agents.get('a')).toEqual(agentRow);
    second.close();
  });

  it('applies only the migrations a database has not had', () => {
    openStore(path, MIGRATIONS).close();
    const store = openStore(path, [...MIGRATIONS, 'CREATE TABLE later (id INTEGER PRIMARY KEY);']);
    expect(store.schemaVersion()).toBe(MIGRATIONS.length + 1);
    store.close();
  });

  it('rolls back a failing migration and leaves the version where it was', () => {
    openStore(path).close();
    expect(() => openStore(path, [...MIGRATIONS, 'CREATE TABLE t (id INTEGER); NOT SQL'])).toThrow();
    const raw = new BetterSqlite3(path);
    expect(raw.pragma('user_version', { simple: true })).toBe(MIGRATIONS.length);
    expect(raw.prepare("SELECT name FROM sqlite_master WHERE name = 't'").get()).toBeUndefined();
    raw.close();
  });

  it('refuses a database from a newer schema', () => {
    openStore(path, [...MIGRATIONS, 'CREATE TABLE later (id INTEGER PRIMARY KEY);']).close();
    expect(() => openStore(path)).toThrow(/newer than this host knows/);
  });

  it('puts the database in WAL mode with foreign keys enforced', () => {
    const store = openStore(path);
    const raw = new BetterSqlite3(path);
    expect(raw.pragma('journal_mode', { simple: true })).toBe('wal');
    expect(() => store.runs.start('nobody', '2025-01-01T00:00:00.000Z')).toThrow(/FOREIGN KEY/);
    raw.close();
    store.close();
  });

  it('records state transitions and runs through the repositories', () => {
    const store = openStore(path);
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
    store.close();
  });
});
