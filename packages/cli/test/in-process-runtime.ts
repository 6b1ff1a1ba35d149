import path from 'node:path';
import { parseAgentEnv, type RunningAgent as StartedAgent, startAgent } from '@openlegion/agent';
import type { AgentRuntime, AgentSpec, RunningAgent } from '@openlegion/host';
import { pino } from 'pino';

/**
 * An AgentRuntime that runs the real agent in this process on a loopback port: the whole chain
 * (agent loop → host LLM proxy → lanes → operator API → CLI) without Docker or a child process.
 */
export class InProcessRuntime implements AgentRuntime {
  readonly kind = 'process';
  readonly #agents = new Map<string, StartedAgent>();

  async prepare(): Promise<{ hostBindAddresses: string[]; agentMeshUrl: (port: number) => string }> {
    return { hostBindAddresses: ['127.0.0.1'], agentMeshUrl: (port) => `http://127.0.0.1:${port}` };
  }

  async cleanupLeftovers(): Promise<string[]> {
    return [];
  }

  async start(spec: AgentSpec): Promise<RunningAgent> {
    const name = `openlegion-${spec.mesh}-${spec.agent}`;
    const agent = await startAgent({
      env: parseAgentEnv({
        AGENT_ID: spec.agent,
        MESH_URL: spec.env.MESH_URL,
        MESH_TOKEN: spec.env.MESH_TOKEN,
        AGENT_HOST: '127.0.0.1',
        AGENT_PORT: '0',
        AGENT_DATA_DIR: path.join(spec.dataDir, 'agents', spec.agent),
      }),
      logger: pino({ level: 'silent' }),
      version: '0.0.0-test',
      // No waits between retries: a test asks once per retry at once.
      tuning: { llmRetryDelaysMs: [] },
    });
    this.#agents.set(name, agent);
    return { agent: spec.agent, name, url: agent.url, containerId: null, pid: null };
  }

  async stop(name: string): Promise<void> {
    await this.#agents.get(name)?.close();
    this.#agents.delete(name);
  }

  async stopAll(): Promise<void> {
    await Promise.all([...this.#agents.keys()].map((name) => this.stop(name)));
  }

  async logs(): Promise<string> {
    return '';
  }

  async teardown(): Promise<void> {}

  onUnexpectedExit(): void {}
}
