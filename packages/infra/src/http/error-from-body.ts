import { errorBodySchema, isErrorCode, OpenLegionError } from '@openlegion/protocol';

/**
 * The error an HTTP answer carries: its protocol error body (`{ error: { code, message, ... } }`)
 * as an OpenLegionError with that code, or `fallback(status, text)` when the body is not one.
 * `prefix` goes before the message, e.g. `GET /mesh/self: 401`.
 */
export function errorFromBody(
  status: number,
  text: string,
  fallback: (status: number, text: string) => OpenLegionError,
  prefix = '',
): OpenLegionError {
  const body = errorBodySchema.safeParse(parseJsonOrUndefined(text));
  if (body.success && isErrorCode(body.data.error.code)) {
    const { code, message, details } = body.data.error;
    return new OpenLegionError(code, `${prefix}${message}`, { details });
  }
  return fallback(status, text);
}

function parseJsonOrUndefined(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}
