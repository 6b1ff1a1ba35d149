import { type DestinationStream, type LevelWithSilent, type Logger, pino } from 'pino';

export type { Logger } from 'pino';

/**
 * Paths pino blanks out before a line is written, for every process: bearer tokens, provider
 * keys, passwords, secrets. One list, so a field redacted in the host is redacted in the agent.
 */
export const REDACTED_PATHS: readonly string[] = [
  'req.headers.authorization',
  'headers.authorization',
  '*.headers.authorization',
  'authorization',
  'apiKey',
  'api_key',
  'token',
  'password',
  'secret',
  'MESH_TOKEN',
  '*.apiKey',
  '*.api_key',
  '*.token',
  '*.MESH_TOKEN',
  'env.MESH_TOKEN',
  '*.key',
  '*.password',
  '*.secret',
];

export const REDACTED_CENSOR = '[redacted]';

export interface LoggerOptions {
  level: LevelWithSilent;
  /** Where lines go; stdout when omitted. Tests pass a stream to read what was written. */
  destination?: DestinationStream;
  /** Fields on every line, e.g. `{ agent: 'researcher' }`. */
  base?: Record<string, unknown>;
}

/**
 * A pino logger with secrets redacted.
 *
 * @example
 * const logger = createLogger({ level: 'info' });
 * logger.child({ agent: 'a' }).info({ provider: 'openai', ms: 12 }, 'llm call');
 */
export function createLogger(options: LoggerOptions): Logger {
  const config = {
    level: options.level,
    redact: { paths: [...REDACTED_PATHS], censor: REDACTED_CENSOR },
    ...(options.base ? { base: options.base } : {}),
  };
  return options.destination ? pino(config, options.destination) : pino(config);
}
