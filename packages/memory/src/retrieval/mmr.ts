import { dot } from '../embed/embedder.js';
import { contentTerms, jaccard } from '../text/tokens.js';
import type { Candidate } from './candidate.js';

/**
 * Maximal marginal relevance: repeatedly take the candidate with the best
 * λ · score − (1 − λ) · (highest similarity to one already taken), so near-duplicates give way to
 * items that add something. Similarity is the vectors' cosine, or term overlap without vectors.
 * Scores are kept; only the order changes. λ = 1 keeps the order as it is.
 */
export function mmrOrder(candidates: readonly Candidate[], lambda: number, limit: number): Candidate[] {
  if (lambda >= 1 || candidates.length <= 1) return candidates.slice(0, limit);
  const remaining = [...candidates];
  const terms = new Map(
    candidates.map((candidate) => [candidate, new Set(contentTerms(candidate.item.abstract))]),
  );
  const chosen: Candidate[] = [];
  while (chosen.length < limit && remaining.length > 0) {
    let bestIndex = 0;
    let bestValue = Number.NEGATIVE_INFINITY;
    remaining.forEach((candidate, index) => {
      const redundancy = chosen.reduce((max, other) => Math.max(max, similarity(candidate, other, terms)), 0);
      const value = lambda * candidate.score - (1 - lambda) * redundancy;
      if (value > bestValue) {
        bestValue = value;
        bestIndex = index;
      }
    });
    const [next] = remaining.splice(bestIndex, 1);
    if (next) chosen.push(next);
  }
  return chosen;
}

function similarity(a: Candidate, b: Candidate, terms: Map<Candidate, Set<string>>): number {
  if (a.vector && b.vector) return dot(a.vector, b.vector);
  return jaccard(terms.get(a) ?? new Set(), terms.get(b) ?? new Set());
}
