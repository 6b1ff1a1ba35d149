import { OpenLegionError } from '@openlegion/protocol';

/** Socket errors that mean no engine answers (as opposed to an engine answering with an error). */
const ENGINE_UNREACHABLE_CODES = new Set([
  'ECONNREFUSED',
  'ENOENT',
  'EACCES',
  'EPERM',
  'ECONNRESET',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'ENOTFOUND',
]);

const ENGINE_FIX =
  'Start Docker (on Debian as root: `bash scripts/ensure-docker.sh`; elsewhere https://docs.docker.com/engine/install/ ' +
  "and add your user to the 'docker' group), or run agents as local processes with weaker isolation: " +
  '`openlegion start --runtime process`.';

function errorCode(error: unknown): string | undefined {
  if (typeof error !== 'object' || error === null || !('code' in error)) return undefined;
  return typeof error.code === 'string' ? error.code : undefined;
}

/** The HTTP status the engine answered with, when it answered at all. */
export function engineStatusCode(error: unknown): number | undefined {
  if (typeof error !== 'object' || error === null || !('statusCode' in error)) return undefined;
  return typeof error.statusCode === 'number' ? error.statusCode : undefined;
}

/** True when the error means no Docker engine could be reached. */
export function isEngineUnreachable(error: unknown): boolean {
  const code = errorCode(error);
  return code !== undefined && ENGINE_UNREACHABLE_CODES.has(code);
}

/** `MESH_RUNTIME_UNAVAILABLE` with the fix in its message. */
export function runtimeUnavailableError(cause: unknown): OpenLegionError {
  const reason = cause instanceof Error ? cause.message : String(cause);
  return new OpenLegionError(
    'MESH_RUNTIME_UNAVAILABLE',
    `no Docker engine answers (${reason}). ${ENGINE_FIX}`,
    {
      cause,
    },
  );
}

/** Runs one engine call; an unreachable engine becomes `MESH_RUNTIME_UNAVAILABLE`, other errors pass. */
export async function callEngine<T>(call: () => Promise<T>): Promise<T> {
  try {
    return await call();
  } catch (error) {
    throw isEngineUnreachable(error) ? runtimeUnavailableError(error) : error;
  }
}

/** Runs an engine call whose "not found" (404) or "nothing to do" (304) answer is fine. */
export async function ignoringAbsent(call: () => Promise<unknown>): Promise<void> {
  try {
    await callEngine(call);
  } catch (error) {
    const status = engineStatusCode(error);
    if (status !== 404 && status !== 304) throw error;
  }
}
