import type { Logger } from 'pino';
import { pino } from 'pino';
import { parseAgentEnv } from '../src/agent-env.js';
import { type AgentTuning, type RunningAgent, startAgent } from '../src/start-agent.js';

/** Where a test agent finds its host, and who it is. */
export interface LocalAgentOptions {
  agentId: string;
  meshUrl: string;
  token: string;
  dataDir: string;
  logger?: Logger;
  version?: string;
  tuning?: AgentTuning;
}

/** Start the real agent in this process on a free loopback port (silent unless given a logger). */
export function startLocalAgent(options: LocalAgentOptions): Promise<RunningAgent> {
  return startAgent({
    env: parseAgentEnv({
      AGENT_ID: options.agentId,
      MESH_URL: options.meshUrl,
      MESH_TOKEN: options.token,
      AGENT_HOST: '127.0.0.1',
      AGENT_PORT: '0',
      AGENT_DATA_DIR: options.dataDir,
    }),
    logger: options.logger ?? pino({ level: 'silent' }),
    version: options.version ?? '0.0.0-test',
    ...(options.tuning ? { tuning: options.tuning } : {}),
  });
}
