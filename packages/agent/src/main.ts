import { createLogger } from '@openlegion/infra/log';
import { isOpenLegionError } from '@openlegion/protocol';
import { type AgentEnv, parseAgentEnv } from './agent-env.js';
import { readAgentVersion } from './agent-version.js';
import { type RunningAgent, startAgent } from './start-agent.js';

/** The container entry point: `node dist/main.js`, configured by the environment only. */
function readEnvOrExit(): AgentEnv {
  try {
    return parseAgentEnv(process.env);
  } catch (error) {
    process.stderr.write(`${isOpenLegionError(error) ? error.message : String(error)}\n`);
    process.exit(1);
  }
}

const env = readEnvOrExit();
const logger = createLogger({ level: env.LOG_LEVEL, base: { agent: env.AGENT_ID } });
let agent: RunningAgent | undefined;
let stopping = false;

// Installed before startup: a stop may come while the agent is still waiting for the host. Nothing
// needs flushing then (SQLite commits are durable), so exiting at once is clean.
const stop = (signal: NodeJS.Signals) => {
  if (stopping) return;
  stopping = true;
  logger.info({ signal }, 'agent stopping');
  (agent?.close() ?? Promise.resolve()).then(
    () => process.exit(0),
    (error: unknown) => {
      logger.error({ err: error }, 'agent stop failed');
      process.exit(1);
    },
  );
};
process.once('SIGTERM', stop);
process.once('SIGINT', stop);

try {
  agent = await startAgent({ env, logger, version: readAgentVersion() });
} catch (error) {
  logger.fatal({ err: error }, 'agent start failed');
  process.exit(1);
}
