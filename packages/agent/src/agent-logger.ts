import { type LevelWithSilent, type Logger, pino } from 'pino';

/** Paths pino replaces with `[Redacted]`: the agent's bearer token must never reach a log line. */
export const REDACTED_LOG_PATHS = [
  'req.headers.authorization',
  'headers.authorization',
  '*.token',
  '*.apiKey',
  'MESH_TOKEN',
  '*.MESH_TOKEN',
];

/** The agent's root logger: JSON lines on stdout, tagged with the agent name, secrets redacted. */
export function createAgentLogger(options: { agent: string; level: LevelWithSilent }): Logger {
  return pino({ level: options.level, base: { agent: options.agent }, redact: REDACTED_LOG_PATHS });
}
