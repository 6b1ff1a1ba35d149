import type { Logger } from 'pino';

/**
 * Keep the host serving when something escapes every handler: an exception thrown from an event
 * callback or a promise nobody awaited would otherwise end the process, and with it every agent's
 * only way to its model, its mesh and the web — one bad request from a hostile agent would be a
 * denial of service. Each escape is logged (it is a bug to fix) and the host runs on. Returns the
 * function that removes the guard again.
 *
 * @example
 * const removeGuard = installProcessGuard(logger);
 * // … run the host …
 * removeGuard();
 */
export function installProcessGuard(logger: Logger): () => void {
  const onException = (error: Error, origin: string) => {
    logger.error({ err: error, origin }, 'uncaught exception; the host keeps serving');
  };
  const onRejection = (reason: unknown) => {
    logger.error({ err: reason }, 'unhandled promise rejection; the host keeps serving');
  };
  process.on('uncaughtException', onException);
  process.on('unhandledRejection', onRejection);
  return () => {
    process.off('uncaughtException', onException);
    process.off('unhandledRejection', onRejection);
  };
}
