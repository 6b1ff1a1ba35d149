import type { LogLevel, Logger as SlackLogger } from '@slack/bolt';
import type { Logger } from 'pino';

const text = (parts: unknown[]) =>
  parts.map((part) => (typeof part === 'string' ? part : String(part))).join(' ');

/**
 * Bolt's and the Socket Mode client's logging into the host's pino log. Their info lines (each
 * reconnect, each rate-limit wait) are kept at debug: the channel logs what a person needs itself.
 */
export function boltLogger(logger: Logger): SlackLogger {
  // LogLevel.INFO, written as its value: Bolt is imported only when Slack starts.
  let level = 'info' as LogLevel;
  return {
    debug: (...parts) => logger.trace(text(parts)),
    info: (...parts) => logger.debug(text(parts)),
    warn: (...parts) => logger.warn(text(parts)),
    error: (...parts) => logger.error(text(parts)),
    setLevel: (next) => {
      level = next;
    },
    getLevel: () => level,
    setName: () => {},
  };
}
