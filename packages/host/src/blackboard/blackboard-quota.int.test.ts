import type { MeshConfigInput } from '@openlegion/protocol';
import { afterEach, describe, expect, it } from 'vitest';
import { type FeatureTestHost, startFeatureTestHost } from '../../test/feature-test-host.js';
import { BLACKBOARD, blackboardFeature } from './blackboard-feature.js';
import { BlackboardStore } from './blackboard-store.js';

const writeAll = { permissions: { blackboard: { read: ['*'], write: ['*'] } } };
const config: MeshConfigInput = {
  llm: { providers: { openai: {} } },
  agents: { a: writeAll, b: writeAll },
  limits: { blackboard_keys_per_agent: 2, blackboard_bytes_per_agent: 65_536, audit_rows_per_agent: 100 },
};

const hosts: FeatureTestHost[] = [];
async function start() {
  const host = await startFeatureTestHost([blackboardFeature()], config);
  const feature = { store: () => host.service(BLACKBOARD) };
  hosts.push(host);
  const put = (who: string, key: string, value: unknown) =>
    host.app.inject({
      method: 'PUT',
      url: `/${who === 'operator' ? 'api' : 'mesh'}/blackboard/entries/${key}`,
      headers: who === 'operator' ? host.operatorAuth : host.agentAuth(who),
      payload: { value },
    });
  const remove = (who: string, key: string) =>
    host.app.inject({
      method: 'DELETE',
      url: `/mesh/blackboard/entries/${key}`,
      headers: host.agentAuth(who),
    });
  return { host, feature, put, remove };
}
afterEach(async () => {
  await Promise.all(hosts.splice(0).map((host) => host.stop()));
});

describe('blackboard quotas', () => {
  it('refuses a key past limits.blackboard_keys_per_agent, writing nothing, and counts a freed one', async () => {
    const { host, put, remove } = await start();
    expect((await put('a', 'k1', 1)).statusCode).toBe(200);
    expect((await put('a', 'k2', 2)).statusCode).toBe(200);
    const refused = await put('a', 'k3', 3);
    expect(refused.statusCode).toBe(429);
    expect(refused.json()).toEqual({
      error: {
        code: 'MESH_QUOTA_EXCEEDED',
        message:
          'agent "a" may hold at most 2 keys on the blackboard (limits.blackboard_keys_per_agent) and holds 2; ' +
          'writing "k3" would make it 3: delete keys it no longer needs',
        retryable: false,
        details: { agent: 'a', key: 'k3', field: 'limits.blackboard_keys_per_agent', used: 2, max: 2 },
      },
    });
    const absent = await host.app.inject({
      url: '/mesh/blackboard/entries/k3',
      headers: host.agentAuth('a'),
    });
    expect(absent.statusCode).toBe(404);

    // Its own keys it may rewrite; another agent has a quota of its own; a delete frees a key.
    expect((await put('a', 'k1', 'again')).statusCode).toBe(200);
    expect((await put('b', 'b1', 1)).statusCode).toBe(200);
    expect((await remove('a', 'k2')).statusCode).toBe(200);
    expect((await put('a', 'k3', 3)).statusCode).toBe(200);
  });

  it('refuses bytes past limits.blackboard_bytes_per_agent', async () => {
    const { put } = await start();
    const big = 'x'.repeat(40_000); // 40,002 bytes of JSON
    expect((await put('a', 'k1', big)).statusCode).toBe(200);
    const refused = await put('a', 'k2', big);
    expect(refused.statusCode).toBe(429);
    expect(refused.json().error).toMatchObject({
      code: 'MESH_QUOTA_EXCEEDED',
      message:
        'agent "a" may hold at most 65536 bytes on the blackboard (limits.blackboard_bytes_per_agent) and holds 40002; ' +
        'writing "k2" would make it 80004: delete keys it no longer needs',
    });
    // Replacing its own value counts the new size instead of the old.
    expect((await put('a', 'k1', 'small')).statusCode).toBe(200);
    expect((await put('a', 'k2', big)).statusCode).toBe(200);
  });

  it('holds the operator to no quota', async () => {
    const { put } = await start();
    for (const key of ['o1', 'o2', 'o3', 'o4'])
      expect((await put('operator', key, key)).statusCode).toBe(200);
  });

  it('hands a key over to its last writer, and reads the counts again at start', async () => {
    const { host, feature, put } = await start();
    await put('a', 'k1', 1);
    await put('a', 'k2', 2);
    await put('b', 'k2', 'taken over');
    expect(feature.store().usage('a')).toEqual({ keys: 1, bytes: 1 });
    expect(feature.store().usage('b')).toEqual({ keys: 1, bytes: 12 });
    const again = new BlackboardStore(host.context.db, () => host.clock.now(), {
      limits: host.context.config.limits,
      isAgent: () => true,
    });
    expect(again.usage('a')).toEqual({ keys: 1, bytes: 1 });
    expect(again.usage('b')).toEqual({ keys: 1, bytes: 12 });
  });

  it("keeps an agent's audit rows near limits.audit_rows_per_agent as it writes", async () => {
    const { host, put } = await start();
    for (let i = 0; i < 300; i++) expect((await put('a', 'k1', i)).statusCode).toBe(200);
    await put('b', 'k2', 'b');
    const rows = (by: string) =>
      host.context.db
        .prepare<[string], { n: number }>('SELECT count(*) AS n FROM blackboard_audit WHERE by = ?')
        .get(by)?.n;
    // Pruned every 100/16 writes: never more than 100 + 7 rows.
    expect(rows('a')).toBeGreaterThanOrEqual(100);
    expect(rows('a')).toBeLessThanOrEqual(107);
    expect(rows('b')).toBe(1);
    const history = await host.app.inject({
      url: '/mesh/blackboard/history/k1',
      headers: host.agentAuth('a'),
    });
    expect(history.json().history.at(-1)).toMatchObject({ version: 300, by: 'a' });
  });
});
