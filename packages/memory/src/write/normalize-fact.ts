import { OpenLegionError } from '@openlegion/protocol';
import { ALWAYS_MERGE, defaultTemporalType, parseCategoryName } from '../model/category-rules.js';
import type { FactInput, NormalizedFact } from '../model/memory-item.js';
import { parseScope } from '../model/scope.js';
import { heuristicCategory } from './heuristic-category.js';

/** Longest content accepted for one item. */
export const MAX_CONTENT_CHARS = 20_000;
const ABSTRACT_MAX_CHARS = 200;
const OVERVIEW_MAX_CHARS = 1_000;
const DEFAULT_IMPORTANCE = 0.5;
const DEFAULT_CONFIDENCE = 0.8;

/**
 * Fill in what a fact leaves out: abstract = its first sentence, overview = its start, category by
 * wording, tier `core` for profile and `working` otherwise.
 *
 * @throws {OpenLegionError} `REQUEST_INVALID` (empty or huge content, scores outside 0..1),
 * `MEM_SCOPE_INVALID`, `MEM_CATEGORY_INVALID`.
 */
export function normalizeFact(fact: FactInput, defaultScope: string): NormalizedFact {
  const content = fact.content.trim();
  if (content === '') throw invalid('content must not be empty');
  if (content.length > MAX_CONTENT_CHARS) {
    throw invalid(`content is ${content.length} characters; the limit is ${MAX_CONTENT_CHARS}`);
  }
  const category = parseCategoryName(fact.category ?? heuristicCategory(content));
  return {
    content,
    abstract: oneLine(fact.abstract?.trim() || firstSentence(content)).slice(0, ABSTRACT_MAX_CHARS),
    overview: (fact.overview?.trim() || content).slice(0, OVERVIEW_MAX_CHARS),
    category,
    scope: parseScope(fact.scope ?? defaultScope),
    tier: fact.tier ?? (ALWAYS_MERGE.has(category) ? 'core' : 'working'),
    temporalType: fact.temporalType ?? defaultTemporalType(category),
    importance: unit('importance', fact.importance ?? DEFAULT_IMPORTANCE),
    confidence: unit('confidence', fact.confidence ?? DEFAULT_CONFIDENCE),
    source: fact.source ?? 'tool',
    sourceRef: fact.sourceRef ?? null,
  };
}

/**
 * The text an item's vector is made from: its abstract and content (the same text once). The
 * overview is left to BM25: it restates the content or carries context (who, when) that every item
 * of a conversation shares, which would pull all their vectors together.
 */
export function embeddingText(item: { abstract: string; overview: string; content: string }): string {
  return item.content.includes(item.abstract) ? item.content : `${item.abstract}\n${item.content}`;
}

function firstSentence(text: string): string {
  const match = /^(.+?[.!?])(\s|$)/s.exec(text);
  return match?.[1] ?? text;
}

function oneLine(text: string): string {
  return text.replace(/\s+/g, ' ').trim();
}

function unit(field: string, value: number): number {
  if (Number.isFinite(value) && value >= 0 && value <= 1) return value;
  throw invalid(`${field} must be a number from 0 to 1`);
}

function invalid(message: string): OpenLegionError {
  return new OpenLegionError('REQUEST_INVALID', message);
}
