import { FakeClock } from '@openlegion/infra/clock';
import { OpenLegionError } from '@openlegion/protocol';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { AgentRegistry, openRegistryStore, toAgentInfo } from './index.js';

describe('AgentRegistry', () => {
  let store: ReturnType<typeof openRegistryStore>;
  let registry: AgentRegistry;
  let clock: FakeClock;
  beforeEach(() => {
    clock = new FakeClock(Date.parse('2025-01-01T00:00:00.000Z'));
    store = openRegistryStore(':memory:');
    registry = new AgentRegistry({ store, clock });
    registry.register({
      name: 'a',
      runtime: 'process',
      model: 'openai/gpt-4.1-mini',
      url: 'http://127.0.0.1:8401',
    });
  });
  afterEach(() => store.db.close());

  it('records a registered agent as starting, in memory and in the store', () => {
    expect(registry.get('a')).toMatchObject({ state: 'starting', startedAt: '2025-01-01T00:00:00.000Z' });
    expect(store.agents.get('a')).toMatchObject({ state: 'starting', url: 'http://127.0.0.1:8401' });
    expect(store.runs.listFor('a')).toHaveLength(1);
  });

  it('resolves a waiter when the agent reports ready', async () => {
    const waiting = registry.waitForReady('a', 5_000);
    registry.markReady('a');
    await expect(waiting).resolves.toMatchObject({
      name: 'a',
      state: 'ready',
      readyAt: '2025-01-01T00:00:00.000Z',
    });
    expect(store.agents.get('a')?.state).toBe('ready');
    expect(store.runs.listFor('a')[0]?.readyAt).toBe('2025-01-01T00:00:00.000Z');
  });

  it('resolves at once for an agent that is already ready', async () => {
    registry.markReady('a');
    await expect(registry.waitForReady('a', 5_000)).resolves.toMatchObject({ state: 'ready' });
  });

  it('rejects a waiter with AGENT_START_FAILED and the reason when the agent fails', async () => {
    const waiting = registry.waitForReady('a', 5_000);
    registry.markFailed('a', new Error('container exited with code 1'));
    await expect(waiting).rejects.toMatchObject({
      code: 'AGENT_START_FAILED',
      message: expect.stringContaining('exited with code 1'),
    });
    expect(store.agents.get('a')).toMatchObject({
      state: 'failed',
      lastError: 'container exited with code 1',
    });
    expect(store.runs.listFor('a')[0]?.outcome).toBe('failed');
  });

  it('rejects a waiter with AGENT_START_FAILED after the timeout, and not before', async () => {
    let outcome: unknown;
    registry.waitForReady('a', 20).catch((error: unknown) => {
      outcome = error;
    });
    await clock.advance(19);
    expect(outcome).toBeUndefined();
    await clock.advance(1);
    expect(outcome).toMatchObject({ code: 'AGENT_START_FAILED' });
  });

  it('rejects a waiter with the abort reason when its signal aborts', async () => {
    const controller = new AbortController();
    const waiting = registry.waitForReady('a', 5_000, controller.signal);
    controller.abort(new Error('shutting down'));
    await expect(waiting).rejects.toThrow('shutting down');
  });

  it('uses the URL an agent reports only when the runtime gave none', () => {
    registry.register({ name: 'b', runtime: 'process', model: 'openai/gpt-4.1-mini' });
    expect(registry.markReady('b', { url: 'http://127.0.0.1:9000' }).url).toBe('http://127.0.0.1:9000');
    expect(registry.markReady('a', { url: 'http://127.0.0.1:9001' }).url).toBe('http://127.0.0.1:8401');
  });

  it('refuses a ready report from a stopped agent', () => {
    registry.markStopped('a');
    expect(() => registry.markReady('a')).toThrow(OpenLegionError);
  });

  it('names the known agents when asked about an unknown one', () => {
    expect(() => registry.markReady('zz')).toThrow(/no agent "zz" \(agents: a\)/);
  });

  it('finishes the run as stopped when the agent stops', () => {
    registry.markReady('a');
    registry.markStopping('a');
    registry.markStopped('a');
    expect(store.runs.listFor('a')[0]).toMatchObject({
      outcome: 'stopped',
      stoppedAt: '2025-01-01T00:00:00.000Z',
    });
    expect(registry.list().map((record) => record.state)).toEqual(['stopped']);
  });

  it('closes the open run when an agent is registered again without stopping', () => {
    registry.register({ name: 'a', runtime: 'process', model: 'openai/gpt-4.1-mini' });
    expect(store.runs.listFor('a').map((run) => run.outcome)).toEqual([null, 'stopped']);
  });

  it('describes an agent in the protocol status shape', () => {
    expect(toAgentInfo(registry.markReady('a'))).toEqual({
      name: 'a',
      state: 'ready',
      runtime: 'process',
      model: 'openai/gpt-4.1-mini',
      url: 'http://127.0.0.1:8401',
      container: null,
      started_at: '2025-01-01T00:00:00.000Z',
      ready_at: '2025-01-01T00:00:00.000Z',
      restarts: 0,
      last_error: null,
    });
  });

  it('counts a second start in the same host run as a restart', () => {
    registry.markFailed('a', new Error('crashed'));
    const again = registry.register({ name: 'a', runtime: 'process', model: 'openai/gpt-4.1-mini' });
    expect([again.restarts, again.state, again.lastError]).toEqual([1, 'starting', null]);
  });
});
