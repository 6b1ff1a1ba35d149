import { OpenLegionError } from '@openlegion/protocol';
import { BUILTIN_CATEGORIES, type TemporalType } from './memory-item.js';

/** profile: one living record per scope, every new fact merges into it (no dedup decision). */
export const ALWAYS_MERGE: ReadonlySet<string> = new Set(['profile']);
/** Categories whose facts may be merged into an existing item. */
export const MERGE_SUPPORTED: ReadonlySet<string> = new Set(['preferences', 'entities', 'patterns']);
/** Facts replaced over time: a supersede keeps the old version as history instead of deleting it. */
export const TEMPORAL_VERSIONED: ReadonlySet<string> = new Set(['preferences', 'entities']);
/** Things that happened: only create or skip, never rewrite. */
export const APPEND_ONLY: ReadonlySet<string> = new Set(['events', 'cases']);

const CATEGORY_NAME = /^[a-z][a-z0-9_]{0,47}$/;

/** A one-line description of each built-in category; seeds its summary. */
export const CATEGORY_DESCRIPTIONS: Record<string, string> = {
  profile: 'who the user is: name, role, background, lasting personal facts',
  preferences: 'what the user likes, dislikes and prefers: tools, styles, habits',
  entities: 'people, projects, organisations, places and things and facts about them',
  events: 'things that happened, with when: meetings, trips, decisions, milestones',
  cases: 'problems met and how they were solved',
  patterns: 'recurring ways of working, procedures and lessons that apply again',
};

/** The dedup decisions a category allows (the LLM's answer is held to them). */
export type DedupDecision = 'create' | 'merge' | 'skip' | 'supersede';

export function allowedDecisions(category: string): readonly DedupDecision[] {
  if (APPEND_ONLY.has(category)) return ['create', 'skip'];
  if (MERGE_SUPPORTED.has(category) || ALWAYS_MERGE.has(category)) {
    return ['create', 'merge', 'skip', 'supersede'];
  }
  return ['create', 'skip', 'supersede'];
}

/** Versioned facts describe a state that changes; everything else defaults to static. */
export function defaultTemporalType(category: string): TemporalType {
  return TEMPORAL_VERSIONED.has(category) ? 'dynamic' : 'static';
}

export function isBuiltinCategory(name: string): boolean {
  return (BUILTIN_CATEGORIES as readonly string[]).includes(name);
}

/**
 * Check a category name: a built-in one or a new one in snake_case (the extractor may create them).
 *
 * @throws {OpenLegionError} `MEM_CATEGORY_INVALID`.
 */
export function parseCategoryName(name: string): string {
  const normalized = name.trim().toLowerCase();
  if (CATEGORY_NAME.test(normalized)) return normalized;
  throw new OpenLegionError(
    'MEM_CATEGORY_INVALID',
    `invalid category "${name.slice(0, 60)}": use lower-case letters, digits and _ (e.g. ${BUILTIN_CATEGORIES.join(', ')})`,
    { details: { category: name.slice(0, 200) } },
  );
}
