import { readFileSync } from 'node:fs';
import { z } from 'zod';

const packageJsonSchema = z.object({ version: z.string().min(1) });

/**
 * The `@openlegion/agent` version from its package.json, found relative to this module so it works
 * from `src/` (tests) and `dist/` (the container) alike.
 */
export function readAgentVersion(): string {
  const file = new URL('../package.json', import.meta.url);
  return packageJsonSchema.parse(JSON.parse(readFileSync(file, 'utf8'))).version;
}
