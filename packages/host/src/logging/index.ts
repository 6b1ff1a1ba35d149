export { createLogger, type LoggerOptions, REDACTED_CENSOR, REDACTED_PATHS } from './create-logger.js';
