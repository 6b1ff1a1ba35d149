import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { FakeClock } from '@openlegion/infra/clock';
import { findFreePorts } from '@openlegion/infra/http';
import { createLogger } from '@openlegion/infra/log';
import { meshConfigSchema } from '@openlegion/protocol';
import { afterEach, expect, it, vi } from 'vitest';
import { FakeAgentRuntime } from '../test/fake-agent-runtime.js';
import { createMeshHost } from './mesh-host.js';

// The app is built while the agents boot; here it cannot be built at all.
vi.mock('./server/build-host-app.js', async (importOriginal) => ({
  ...(await importOriginal<typeof import('./server/build-host-app.js')>()),
  buildHostApp: async () => {
    throw new Error('a route could not be registered');
  },
}));

let dataDir: string | undefined;
afterEach(() => {
  if (dataDir) rmSync(dataDir, { recursive: true, force: true });
});

it('fails the start at once with the reason when the app cannot be built, instead of waiting for agents that cannot reach it', async () => {
  dataDir = mkdtempSync(path.join(tmpdir(), 'mesh-host-app-'));
  const [port, egressPort] = await findFreePorts('127.0.0.1', 2);
  const config = meshConfigSchema.parse({
    mesh: { name: 'appfail', port, egress_port: egressPort, data_dir: dataDir },
    runtime: { kind: 'process', ready_timeout_ms: 30_000 },
    llm: { providers: { openai: { api_key: 'env:OPENAI_API_KEY' } } },
    agents: { alpha: {} },
  });
  // The agent never reports ready and the clock never moves: only the app's failure can end the start.
  const runtime = new FakeAgentRuntime({ alpha: 'silent' });
  const host = createMeshHost({
    loaded: {
      config,
      file: path.join(dataDir, 'mesh.yaml'),
      dataDir,
      resolvePath: (p) => path.resolve(dataDir ?? '', p),
    },
    runtime: 'process',
    logger: createLogger({ level: 'silent' }),
    env: {},
    agentEntry: '/unused',
    agentRuntime: runtime,
    clock: new FakeClock(Date.parse('2026-01-01T00:00:00Z')),
  });
  await expect(host.start()).rejects.toThrow('a route could not be registered');
  expect(runtime.running.size).toBe(0);
});
