export {
  createLogger,
  type Logger,
  type LoggerOptions,
  REDACTED_CENSOR,
  REDACTED_PATHS,
} from './create-logger.js';
