import { isOpenLegionError } from '@openlegion/protocol';

/** `EX_TEMPFAIL` of sysexits.h: a temporary failure, the same command may succeed later. */
export const EXIT_TRY_AGAIN = 75;
/** Any other failure. */
export const EXIT_FAILED = 1;

/**
 * The exit code of a command that failed with `error`: 75 when the mesh says it may be retried
 * (`retryable`: the agent busy or not ready, the provider unavailable, a lane queue full), 1
 * otherwise (a budget exceeded, a request refused, an unexpected fault). The one mapping from an
 * error (including a chat's `error` event, through protocol's `chatEventError`) to an exit code.
 *
 * @example exitCodeOf(new OpenLegionError('BUDGET_EXCEEDED', 'over budget')) // 1
 */
export function exitCodeOf(error: unknown): number {
  return isOpenLegionError(error) && error.retryable ? EXIT_TRY_AGAIN : EXIT_FAILED;
}
