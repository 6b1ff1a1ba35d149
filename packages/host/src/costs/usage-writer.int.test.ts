import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { migrate, openDatabase } from '@openlegion/infra/sqlite';
import { afterEach, describe, expect, it } from 'vitest';
import { COST_MIGRATIONS, UsageLog, type UsageRecord } from './usage-log.js';

const dirs: string[] = [];
const meshDb = () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'ol-usage-'));
  dirs.push(dir);
  const db = openDatabase(path.join(dir, 'mesh.db'), { synchronous: 'FULL' });
  migrate(db, [{ feature: 'costs', steps: COST_MIGRATIONS }]);
  return db;
};
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

const usage = (index: number): UsageRecord => ({
  at: 1_000 + index,
  agent: 'a',
  billed_to: 'a',
  model: 'up/m',
  prompt_tokens: 10,
  completion_tokens: 5,
  cached_tokens: 0,
  cost_usd: 0.5,
  request_id: `req-${index}`,
  trace_id: null,
  estimated: 0,
});

describe('UsageLog on a mesh.db file (commits on a writer thread)', () => {
  it('resolves each record once committed, visible to the main connection, and many at once', async () => {
    const db = meshDb();
    const log = new UsageLog(db);
    await Promise.all(Array.from({ length: 200 }, (_, index) => log.record(usage(index))));
    expect(log.spent('a', 0)).toBeCloseTo(100, 10);
    expect(log.spend(0)).toEqual([
      expect.objectContaining({ agent: 'a', model: 'up/m', calls: 200, prompt_tokens: 2_000 }),
    ]);
    await log.close();
    db.close();
  });

  it('commits what is in flight before close returns', async () => {
    const db = meshDb();
    const log = new UsageLog(db);
    for (let index = 0; index < 50; index++) void log.record(usage(index));
    await log.close();
    expect(log.spent('a', 0)).toBeCloseTo(25, 10);
    db.close();
  });

  it('rejects a record the database refuses, alone, keeping the others committed with it', async () => {
    const db = meshDb();
    const log = new UsageLog(db);
    const [refused, kept] = await Promise.allSettled([
      log.record({ ...usage(1), agent: null as unknown as string }),
      log.record(usage(2)),
    ]);
    expect(refused.status === 'rejected' && String(refused.reason)).toMatch(/NOT NULL/);
    expect(kept.status).toBe('fulfilled');
    expect(log.spent('a', 0)).toBeCloseTo(0.5, 10);
    await log.close();
    db.close();
  });

  it('sums spend per agent and model in time buckets (the dashboard chart)', async () => {
    const db = meshDb();
    const log = new UsageLog(db);
    // at 1_000..1_199 in buckets of 100 ms: 0 (1_000..1_099 → bucket 1_000) and 1_100.
    await Promise.all(Array.from({ length: 200 }, (_, index) => log.record(usage(index))));
    expect(log.spendSeries(0, 100)).toEqual([
      { at: 1_000, agent: 'a', model: 'up/m', cost_usd: 50 },
      { at: 1_100, agent: 'a', model: 'up/m', cost_usd: 50 },
    ]);
    expect(log.spendSeries(1_150, 100)).toEqual([{ at: 1_100, agent: 'a', model: 'up/m', cost_usd: 25 }]);
  });
});
