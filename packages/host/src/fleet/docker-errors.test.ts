import Dockerode from 'dockerode';
import { describe, expect, it } from 'vitest';
import { DockerRuntime } from './docker-runtime.js';

describe('DockerRuntime without an engine', () => {
  it('fails with MESH_RUNTIME_UNAVAILABLE saying how to fix it', async () => {
    const runtime = new DockerRuntime({ docker: new Dockerode({ socketPath: '/nonexistent/docker.sock' }) });
    const failure = await runtime.prepare('demo').catch((error: unknown) => error);
    expect(failure).toMatchObject({ code: 'MESH_RUNTIME_UNAVAILABLE' });
    expect(String(failure)).toMatch(/ensure-docker\.sh.*--runtime process/s);
  });
});
