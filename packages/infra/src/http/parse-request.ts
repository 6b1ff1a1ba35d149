import { OpenLegionError } from '@openlegion/protocol';
import type { z } from 'zod';

/** Parse a request body or parameter; a failure is REQUEST_INVALID naming each failing field. */
export function parseRequest<Schema extends z.ZodType>(
  schema: Schema,
  value: unknown,
  where = 'body',
): z.output<Schema> {
  const result = schema.safeParse(value);
  if (result.success) return result.data;
  const issues = result.error.issues.map((issue) => ({
    path: [where, ...issue.path.map(String)].join('.'),
    message: issue.message,
  }));
  const summary = issues.map((issue) => `${issue.path}: ${issue.message}`).join('; ');
  throw new OpenLegionError('REQUEST_INVALID', `invalid request: ${summary}`, { details: { issues } });
}
