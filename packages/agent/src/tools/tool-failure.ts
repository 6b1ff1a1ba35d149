import { isOpenLegionError, type ToolResult, textResult } from '@openlegion/protocol';

/**
 * A failure the model can act on: thrown inside a tool, returned to the model as an `isError`
 * result carrying `message`. Write the message for the model: name the problem and what to try.
 */
export class ToolFailure extends Error {
  override readonly name = 'ToolFailure';
}

/** File-system errors worth explaining to the model in its own terms, by `code`. */
const FS_ERRORS: Record<string, string> = {
  ENOENT: 'no such file or directory',
  EACCES: 'permission denied',
  EPERM: 'operation not permitted',
  EISDIR: 'is a directory',
  ENOTDIR: 'a part of the path is not a directory',
  EEXIST: 'already exists',
  ENOSPC: 'no space left on the device',
  EROFS: 'read-only file system',
  EMFILE: 'too many open files',
  ELOOP: 'too many symbolic links',
};

/**
 * Run a tool's work and turn what goes wrong into a result the model can read: a
 * {@link ToolFailure}, an {@link OpenLegionError} (`CODE: message`), a file-system error or an
 * abort. Anything else is a bug in the tool and is thrown on to the loop.
 */
export async function guardTool(work: () => Promise<ToolResult | string>): Promise<ToolResult> {
  try {
    const result = await work();
    return typeof result === 'string' ? textResult(result) : result;
  } catch (error) {
    const message = failureMessage(error);
    if (message === undefined) throw error;
    return textResult(message, true);
  }
}

/** The model-facing message for an expected failure, or undefined for a bug. */
export function failureMessage(error: unknown): string | undefined {
  if (error instanceof ToolFailure) return error.message;
  if (isOpenLegionError(error)) return `${error.code}: ${error.message}`;
  if (!(error instanceof Error)) return undefined;
  if (error.name === 'AbortError') return 'cancelled: the turn was stopped before the tool finished';
  const code = (error as NodeJS.ErrnoException).code;
  if (code && FS_ERRORS[code]) {
    const where = (error as NodeJS.ErrnoException).path;
    return `${FS_ERRORS[code]}${where ? ` (${where})` : ''}`;
  }
  return undefined;
}
