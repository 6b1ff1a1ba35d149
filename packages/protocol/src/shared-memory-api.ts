import { z } from 'zod';
import { globPatternSchema } from './pattern-bounds.js';

/**
 * The mesh's shared memory scopes, kept by the host in one store per mesh
 * (`<data_dir>/shared-memory.db`): `global`, which every permitted agent shares, and `squad:NAME`,
 * one per squad (a team of agents; the teams feature keeps its squad memory here under the team's
 * name). An agent's own scope stays in its container. Agents reach these under
 * `/mesh/memory/SCOPE/...` within `permissions.memory`; the operator under `/api/memory/SCOPE/...`.
 */
export const SHARED_MEMORY_MESH_PATH = '/mesh/memory';
export const SHARED_MEMORY_API_PATH = '/api/memory';

export const GLOBAL_MEMORY_SCOPE = 'global';
/** A squad's name: a team name in mesh.yaml; letters, digits, `.`, `_` and `-`, 64 at most. */
const SQUAD_NAME = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/;

/** A squad's name where one is given alone (a spawn's or a template's `squad`): its memory is `squad:NAME`. */
export const squadNameSchema = z
  .string()
  .regex(
    SQUAD_NAME,
    'use a squad name: letters, digits, ".", "_" and "-", starting with a letter or digit (max 64)',
  );

/** Whether `scope` names a shared scope (`global` or `squad:NAME`). */
export function isSharedMemoryScope(scope: string): boolean {
  if (scope === GLOBAL_MEMORY_SCOPE) return true;
  return scope.startsWith('squad:') && SQUAD_NAME.test(scope.slice('squad:'.length));
}

/** The scope of a squad (team) named `name`. */
export function squadMemoryScope(name: string): string {
  return `squad:${name}`;
}

/**
 * A pattern in `permissions.memory.read|write`: `global`, `squad:research`, `squad:*`, or `*`
 * (every shared scope); bounded like every pattern the host matches.
 */
export const sharedScopePatternSchema = globPatternSchema.refine(
  (pattern) => pattern === '*' || pattern === GLOBAL_MEMORY_SCOPE || pattern.startsWith('squad:'),
  { message: 'a shared memory scope pattern is global, squad:NAME, a squad glob such as squad:*, or *' },
);

/** The longest search query (characters): the memory engine's own cap. */
export const SHARED_MEMORY_QUERY_MAX_CHARS = 8_000;
/** The longest fact (characters): the memory engine's own cap. */
export const SHARED_MEMORY_CONTENT_MAX_CHARS = 20_000;

/** `POST /mesh/memory/SCOPE/search`. */
export const sharedMemorySearchSchema = z
  .object({
    query: z.string().min(1).max(SHARED_MEMORY_QUERY_MAX_CHARS),
    limit: z.number().int().min(1).max(20).default(5),
    category: z.string().max(64).optional(),
  })
  .strict();
export type SharedMemorySearch = z.infer<typeof sharedMemorySearchSchema>;

/** `POST /mesh/memory/SCOPE/items`: one fact; the writer is the caller's identity, never a field. */
export const sharedMemorySaveSchema = z
  .object({
    content: z.string().min(1).max(SHARED_MEMORY_CONTENT_MAX_CHARS),
    abstract: z.string().max(200).optional(),
    category: z.string().max(64).optional(),
    importance: z.number().min(0).max(1).optional(),
  })
  .strict();
export type SharedMemorySave = z.infer<typeof sharedMemorySaveSchema>;

/** One memory of a shared scope, with who wrote it (`null`: the operator or an import). */
export const sharedMemoryItemSchema = z.object({
  id: z.number().int(),
  scope: z.string(),
  category: z.string(),
  abstract: z.string(),
  content: z.string(),
  writer: z.string().nullable(),
  created_at: z.number(),
  updated_at: z.number(),
});
export type SharedMemoryItem = z.infer<typeof sharedMemoryItemSchema>;

/** The answer of a search: hits best first. */
export const sharedMemorySearchAnswerSchema = z.object({
  scope: z.string(),
  hits: z.array(z.object({ item: sharedMemoryItemSchema, score: z.number() })),
});
export type SharedMemorySearchAnswer = z.infer<typeof sharedMemorySearchAnswerSchema>;

/** The answer of a save: what the store did (created, merged, skipped, ...) and the item's id. */
export const sharedMemorySaveAnswerSchema = z.object({
  scope: z.string(),
  action: z.string(),
  id: z.number().int().nullable(),
  reason: z.string(),
});
export type SharedMemorySaveAnswer = z.infer<typeof sharedMemorySaveAnswerSchema>;

/** The answer of `GET .../SCOPE/items`: live items, oldest first. */
export const sharedMemoryListAnswerSchema = z.object({
  scope: z.string(),
  items: z.array(sharedMemoryItemSchema),
});
export type SharedMemoryListAnswer = z.infer<typeof sharedMemoryListAnswerSchema>;

/** `GET /api/memory` (the operator): each shared scope that holds items, with counts by category. */
export const sharedMemoryScopesAnswerSchema = z.object({
  scopes: z.array(
    z.object({
      scope: z.string(),
      items: z.number().int(),
      categories: z.record(z.string(), z.number().int()),
    }),
  ),
});
export type SharedMemoryScopesAnswer = z.infer<typeof sharedMemoryScopesAnswerSchema>;
