import { z } from 'zod';
import { ERROR_CODES, type ErrorCode } from './error-codes.js';

export { ERROR_CODES, type ErrorCode };

export const errorBodySchema = z.object({
  error: z.object({
    code: z.string(),
    message: z.string(),
    retryable: z.boolean(),
    details: z.unknown().optional(),
    /** OpenAI's error type (`invalid_request_error`, ...): set on the OpenAI-compatible `/v1` routes. */
    type: z.string().optional(),
    /** OpenAI's `param`, the request field at fault (or null): set on the `/v1` routes. */
    param: z.string().nullable().optional(),
  }),
});
/**
 * The body of every error response: `{ error: { code, message, retryable, details? } }`; on the
 * OpenAI-compatible `/v1` routes also `type` and `param`, so it is OpenAI's error shape as well.
 */
export type ErrorBody = z.infer<typeof errorBodySchema>;

/**
 * The brand every {@link OpenLegionError} carries. `Symbol.for` gives the same symbol in every copy
 * of this package (two bundles, a test alias next to a built dist), where `instanceof` is false.
 */
export const OPENLEGION_ERROR_BRAND: unique symbol = Symbol.for('openlegion.error');

/**
 * The one base error. Its `code` is stable and documented; `toJSON()` gives the wire body.
 * Recognise one with {@link isOpenLegionError}, not `instanceof`, wherever behaviour depends on it.
 *
 * @example
 * throw new OpenLegionError('AGENT_UNKNOWN', 'no agent "x"; agents: a, b', { details: { agents } });
 */
export class OpenLegionError extends Error {
  readonly code: ErrorCode;
  readonly retryable: boolean;
  readonly details: unknown;

  constructor(code: ErrorCode, message: string, options: { cause?: unknown; details?: unknown } = {}) {
    super(message, { cause: options.cause });
    this.name = new.target.name;
    this.code = code;
    this.retryable = ERROR_CODES[code].retryable;
    this.details = options.details;
  }

  /** On the prototype, not the instance: no own property shows in logs or deep equality. */
  get [OPENLEGION_ERROR_BRAND](): true {
    return true;
  }

  /** The HTTP status this error maps to. */
  get status(): number {
    return ERROR_CODES[this.code].status;
  }

  toJSON(): ErrorBody {
    const body: ErrorBody = { error: { code: this.code, message: this.message, retryable: this.retryable } };
    if (this.details !== undefined) body.error.details = this.details;
    return body;
  }
}

/** Build a wire error body without throwing. */
export function errorBody(code: ErrorCode, message: string, details?: unknown): ErrorBody {
  return new OpenLegionError(code, message, { details }).toJSON();
}

export function isErrorCode(value: string): value is ErrorCode {
  return Object.hasOwn(ERROR_CODES, value);
}

/**
 * The code of an `error` chat event as a host, CLI or channel raises it: a catalogue code keeps
 * its meaning (and so its HTTP status); anything else an agent sends is `AGENT_LLM_FAILED`. So is
 * an `AUTH_*` code: it would tell the operator that its own token was refused, which no turn can
 * know (an agent is untrusted, and its events reach the operator's clients).
 */
export function turnErrorCode(code: string): ErrorCode {
  return isErrorCode(code) && !code.startsWith('AUTH_') ? code : 'AGENT_LLM_FAILED';
}

/**
 * Whether a code the LLM proxy answered an agent's call with keeps its meaning for the operator
 * when it ends the agent's turn: the proxy's own `LLM_*` and `BUDGET_*` codes do (a budget
 * exceeded is a budget exceeded, wherever it is seen); any other (the agent's token refused, the
 * agent's own malformed request) is the agent's fault, reported as `AGENT_LLM_FAILED`.
 */
export function keepsMeaningInTurn(code: unknown): code is ErrorCode {
  return (
    typeof code === 'string' && isErrorCode(code) && (code.startsWith('LLM_') || code.startsWith('BUDGET_'))
  );
}

/**
 * Whether `value` is an {@link OpenLegionError}, also one made by another copy of this package
 * (where `instanceof` is false): the brand, and a code this copy knows.
 *
 * @example
 * if (isOpenLegionError(error) && error.code === 'MESH_NOT_RUNNING') return 0;
 */
export function isOpenLegionError(value: unknown): value is OpenLegionError {
  if (typeof value !== 'object' || value === null) return false;
  const candidate = value as { [OPENLEGION_ERROR_BRAND]?: unknown; code?: unknown };
  return (
    candidate[OPENLEGION_ERROR_BRAND] === true &&
    typeof candidate.code === 'string' &&
    isErrorCode(candidate.code)
  );
}
