import { readFileSync } from 'node:fs';

/** The host's version, read from its package.json (works from src/ under vitest and from dist/). */
export const HOST_VERSION = (
  JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { version: string }
).version;
