import type { z } from 'zod';
import { ProviderFailure } from './provider-failure.js';

/** `json` as `schema` reads it, or a `server` failure naming the first field that is wrong. */
export function readAnswer<T>(schema: z.ZodType<T>, json: unknown, provider: string): T {
  const parsed = schema.safeParse(json);
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0];
  const field = issue?.path.join('.') || 'the body';
  throw new ProviderFailure(
    'server',
    `answered JSON that is not a ${provider} search answer (${field}: ${issue?.message ?? 'invalid'})`,
  );
}
