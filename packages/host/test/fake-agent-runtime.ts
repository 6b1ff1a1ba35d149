import type { AgentRuntime, AgentSpec, PreparedMesh, RunningAgent } from '../src/fleet/index.js';

/** How a fake agent behaves once started. */
export type FakeAgentBehaviour =
  /** Calls the host like a real agent: `GET /mesh/self`, then `POST /mesh/ready`. */
  | 'ready'
  /** Runs, but never reports ready. */
  | 'silent'
  /** The runtime fails to start it. */
  | 'fail-to-start'
  /** Starting takes until `release()`; lets a test stop the host mid-launch. */
  | 'hang';

/**
 * An AgentRuntime with no Docker and no processes: its agents are a few HTTP calls to the real
 * host on loopback. Records what the host asked of it.
 */
export class FakeAgentRuntime implements AgentRuntime {
  readonly kind = 'process' as const;
  readonly started: AgentSpec[] = [];
  readonly running = new Set<string>();
  readonly events: string[] = [];
  #release: () => void = () => {};
  readonly #released = new Promise<void>((resolve) => {
    this.#release = resolve;
  });

  constructor(private readonly behaviours: Record<string, FakeAgentBehaviour> = {}) {}

  async prepare(mesh: string): Promise<PreparedMesh> {
    this.events.push(`prepare ${mesh}`);
    return { hostBindAddresses: ['127.0.0.1'], agentMeshUrl: (port) => `http://127.0.0.1:${port}` };
  }

  async cleanupLeftovers(): Promise<string[]> {
    return [];
  }

  async start(spec: AgentSpec): Promise<RunningAgent> {
    this.started.push(spec);
    const behaviour = this.behaviours[spec.agent] ?? 'ready';
    if (behaviour === 'fail-to-start') throw new Error(`cannot start ${spec.agent}`);
    if (behaviour === 'hang') await this.#released;
    const name = `openlegion-${spec.mesh}-${spec.agent}`;
    this.running.add(name);
    this.events.push(`start ${spec.agent}`);
    if (behaviour === 'ready') void reportReady(spec);
    return { agent: spec.agent, name, url: `http://127.0.0.1:1/${spec.agent}`, containerId: null, pid: null };
  }

  /** Let agents with the `hang` behaviour finish starting. */
  release(): void {
    this.#release();
  }

  async stop(name: string): Promise<void> {
    this.running.delete(name);
  }

  async stopAll(): Promise<void> {
    this.events.push(`stopAll ${[...this.running].sort().join(',')}`);
    this.running.clear();
  }

  async logs(name: string): Promise<string> {
    return `${name}: waiting for something that never comes`;
  }

  async teardown(mesh: string): Promise<void> {
    this.events.push(`teardown ${mesh}`);
  }

  readonly #exitListeners: Array<(agent: string) => void> = [];

  onUnexpectedExit(listener: (agent: string) => void): void {
    this.#exitListeners.push(listener);
  }

  /** Simulate an agent dying on its own (a crash, `docker kill`). */
  crash(agent: string): void {
    for (const name of this.running) if (name.endsWith(`-${agent}`)) this.running.delete(name);
    for (const listener of this.#exitListeners) listener(agent);
  }
}

async function reportReady(spec: AgentSpec): Promise<void> {
  const headers = { authorization: `Bearer ${spec.env.MESH_TOKEN}`, 'content-type': 'application/json' };
  const self = await fetch(`${spec.env.MESH_URL}/mesh/self`, { headers });
  if (!self.ok) throw new Error(`/mesh/self answered ${self.status}`);
  await fetch(`${spec.env.MESH_URL}/mesh/ready`, { method: 'POST', headers, body: '{}' });
}
