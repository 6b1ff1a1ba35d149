import { stemmer } from 'stemmer';
import { ENGLISH_STOP_WORDS } from './stop-words.js';

const WORD = /[\p{L}\p{N}]+/gu;

/** Lower-cased words (letters and digits), in order; apostrophes and punctuation split words. */
export function words(text: string): string[] {
  return text.toLowerCase().match(WORD) ?? [];
}

/** Porter stem of a word, as FTS5's `porter` tokenizer computes it (so both sides agree). */
export function stem(word: string): string {
  return /^\p{N}+$/u.test(word) ? word : stemmer(word);
}

/** Stemmed words that carry topic: stop words dropped. Falls back to all words when every one is a stop word. */
export function contentTerms(text: string): string[] {
  const all = words(text);
  const kept = all.filter((word) => !ENGLISH_STOP_WORDS.has(word));
  return (kept.length > 0 ? kept : all).map(stem);
}

/**
 * An FTS5 MATCH expression that finds items containing any of the query's terms: each term quoted,
 * so user text can never be read as FTS syntax. Empty when the query has no words.
 */
export function ftsQuery(text: string): string {
  return ftsMatch([...new Set(contentTerms(text))]);
}

/** An FTS5 MATCH expression for items containing any of `terms` (each quoted). Empty for no terms. */
export function ftsMatch(terms: readonly string[]): string {
  return terms.map((term) => `"${term.replaceAll('"', '""')}"`).join(' OR ');
}

/** Jaccard similarity of two texts' term sets: the dedup measure when no embedder is configured. */
export function termJaccard(a: string, b: string): number {
  return jaccard(new Set(contentTerms(a)), new Set(contentTerms(b)));
}

/** |A ∩ B| / |A ∪ B|; two empty sets are identical (1). */
export function jaccard(left: ReadonlySet<string>, right: ReadonlySet<string>): number {
  if (left.size === 0 && right.size === 0) return 1;
  let shared = 0;
  for (const term of left) if (right.has(term)) shared++;
  return shared / (left.size + right.size - shared);
}
