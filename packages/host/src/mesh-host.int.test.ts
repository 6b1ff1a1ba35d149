import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { FakeClock } from '@openlegion/infra/clock';
import { findFreePorts } from '@openlegion/infra/http';
import { createLogger } from '@openlegion/infra/log';
import { openDatabase } from '@openlegion/infra/sqlite';
import { meshConfigSchema } from '@openlegion/protocol';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { type FakeAgentBehaviour, FakeAgentRuntime } from '../test/fake-agent-runtime.js';
import type { LoadedMeshConfig } from './config/index.js';
import type { StartProgress } from './fleet/index.js';
import { createMeshHost } from './mesh-host.js';
import type { MeshHost } from './mesh-host-options.js';

const READY_TIMEOUT_MS = 30_000;

describe('createMeshHost (the composition root, no Docker)', () => {
  let dataDir: string;
  let port: number;
  let egressPort: number;
  let clock: FakeClock;
  let host: MeshHost | undefined;

  beforeEach(async () => {
    dataDir = mkdtempSync(path.join(tmpdir(), 'mesh-host-'));
    // Not the default mesh.port + 1 for the egress proxy: on a busy machine it is sometimes taken.
    [port, egressPort] = (await findFreePorts('127.0.0.1', 2)) as [number, number];
    clock = new FakeClock(Date.parse('2026-01-01T00:00:00Z'));
  });
  afterEach(async () => {
    await host?.stop();
    host = undefined;
    rmSync(dataDir, { recursive: true, force: true });
  });

  function meshHost(runtime: FakeAgentRuntime, progress: StartProgress[] = []): MeshHost {
    const config = meshConfigSchema.parse({
      mesh: { name: 'comp', port, egress_port: egressPort, data_dir: dataDir },
      runtime: { kind: 'process', ready_timeout_ms: READY_TIMEOUT_MS },
      llm: { providers: { openai: { api_key: 'env:OPENAI_API_KEY' } } },
      agents: { alpha: {}, beta: {} },
    });
    const loaded: LoadedMeshConfig = {
      config,
      file: path.join(dataDir, 'mesh.yaml'),
      dataDir,
      resolvePath: (relative) => path.resolve(dataDir, relative),
    };
    host = createMeshHost({
      loaded,
      runtime: 'process',
      logger: createLogger({ level: 'silent' }),
      env: {},
      agentEntry: '/unused',
      agentRuntime: runtime,
      clock,
      onProgress: (line) => progress.push(line),
    });
    return host;
  }
  const runtimeWith = (behaviours: Record<string, FakeAgentBehaviour> = {}) =>
    new FakeAgentRuntime(behaviours);

  it('starts every agent, reports them ready, and stops agents before removing the network', async () => {
    const runtime = runtimeWith();
    const mesh = meshHost(runtime);
    const status = await mesh.start();
    expect(status.agents.map((agent) => [agent.name, agent.state])).toEqual([
      ['alpha', 'ready'],
      ['beta', 'ready'],
    ]);
    // The process runtime has no mesh network to lock; the agents' proxy password is not their mesh token.
    expect(status.network).toBe('none');
    for (const spec of runtime.started) {
      const proxy = new URL(spec.env.HTTP_PROXY ?? '');
      expect(proxy.username).toBe(spec.agent);
      expect(proxy.password).toMatch(/^[A-Za-z0-9_-]{43}$/);
      expect(proxy.password).not.toBe(spec.env.MESH_TOKEN);
      expect(JSON.stringify(spec.env).split(spec.env.MESH_TOKEN ?? '')).toHaveLength(2);
    }
    const healthz = await fetch(`http://127.0.0.1:${port}/healthz`);
    expect(await healthz.json()).toEqual({ ok: true });
    await mesh.stop();
    expect(runtime.events.slice(-2)).toEqual([
      'stopAll openlegion-comp-alpha,openlegion-comp-beta',
      'teardown comp',
    ]);
    await expect(fetch(`http://127.0.0.1:${port}/healthz`)).rejects.toThrow();
    const db = openDatabase(path.join(dataDir, 'mesh.db'));
    expect(db.prepare('SELECT name, state FROM agents ORDER BY name').all()).toEqual([
      { name: 'alpha', state: 'stopped' },
      { name: 'beta', state: 'stopped' },
    ]);
    db.close();
  });

  it('fails the start when an agent never reports ready, names it with its log, and leaves nothing running', async () => {
    const runtime = runtimeWith({ beta: 'silent' });
    const progress: StartProgress[] = [];
    const mesh = meshHost(runtime, progress);
    let outcome: unknown;
    const starting = mesh.start().catch((error: unknown) => {
      outcome = error;
    });
    await vi.waitFor(() =>
      expect(progress.map((line) => `${line.agent} ${line.phase}`)).toContain('alpha ready'),
    );
    await vi.waitFor(() => expect(clock.pendingTimers).toBeGreaterThan(0));
    await clock.advance(READY_TIMEOUT_MS - 1);
    expect(outcome).toBeUndefined();
    await clock.advance(1);
    await starting;
    expect(outcome).toMatchObject({
      code: 'AGENT_START_FAILED',
      message: expect.stringMatching(
        /agent "beta" did not become ready within 30s[\s\S]*waiting for something/,
      ),
    });
    expect(runtime.running.size).toBe(0);
    expect(runtime.events.at(-1)).toBe('teardown comp');
  });

  it('stops everything when stopped (Ctrl-C) while an agent is still launching', async () => {
    const runtime = runtimeWith({ beta: 'hang' });
    const progress: StartProgress[] = [];
    const mesh = meshHost(runtime, progress);
    const starting = mesh.start();
    await vi.waitFor(() =>
      expect(progress.map((line) => `${line.agent} ${line.phase}`)).toContain('alpha ready'),
    );
    const stopping = mesh.stop();
    runtime.release();
    await expect(starting).rejects.toMatchObject({ code: 'AGENT_START_FAILED' });
    await stopping;
    expect(runtime.running.size).toBe(0);
    expect(runtime.events.at(-1)).toBe('teardown comp');
  });

  it('refuses a taken port before starting any agent', async () => {
    const blocker = createServer().listen(port, '127.0.0.1');
    await new Promise((resolve) => blocker.once('listening', resolve));
    const runtime = runtimeWith();
    await expect(meshHost(runtime).start()).rejects.toMatchObject({
      code: 'MESH_PORT_IN_USE',
      message: expect.stringContaining(`port ${port} on 127.0.0.1`),
    });
    expect(runtime.started).toEqual([]);
    blocker.close();
  });
});
