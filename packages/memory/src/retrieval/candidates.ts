import { dot } from '../embed/embedder.js';
import { searchText } from '../store/fts-index.js';
import type { MemoryContext } from '../store/memory-context.js';
import { contentTerms, ftsMatch } from '../text/tokens.js';
import type { Candidate } from './candidate.js';
import { withFeedback } from './feedback.js';
import { fuseScores, normalizeBm25 } from './fusion.js';
import type { RetrievalConfig } from './retrieval-config.js';
import { selectiveTerms } from './selective-terms.js';

/** Where to look and how many to take from each side. */
export interface CandidateQuery {
  text: string;
  vector: Float32Array | undefined;
  scopes: readonly string[];
  categories?: readonly string[];
  pool: number;
}

/**
 * The union of the vector and BM25 top-`pool` lists, each item scored on both signals (its stored
 * vector is compared with the query even when only BM25 found it) and fused.
 */
export function collectCandidates(
  context: MemoryContext,
  query: CandidateQuery,
  config: RetrievalConfig,
): Candidate[] {
  const terms = selectiveTerms(context.db, [...new Set(contentTerms(query.text))], config);
  const match = ftsMatch(terms);
  const firstHits = searchText(
    context.db,
    match,
    query.pool,
    query.scopes,
    query.categories,
    config.bm25ColumnWeights,
  );
  const textHits = withFeedback(context, firstHits, terms, query, config);
  const vectorHits = query.vector
    ? context.vectors.knn(query.vector, query.pool, query.scopes, query.categories)
    : [];
  const ids = [...new Set([...vectorHits.map((hit) => hit.id), ...textHits.map((hit) => hit.id)])];
  const rows = context.items.getManyWithVectors(ids);
  const rawBm25 = new Map(textHits.map((hit) => [hit.id, hit.bm25]));
  const best = textHits.reduce((max, hit) => Math.max(max, hit.bm25), 0);
  const queryTerms = new Set(config.bm25Normalization === 'coverage' ? contentTerms(query.text) : []);
  const textRan = match !== '';
  const candidates = rows.map(({ item, vector: stored }) => {
    const vector = query.vector ? stored : undefined;
    const vectorScore = query.vector && vector ? Math.max(0, Math.min(1, dot(query.vector, vector))) : null;
    const raw = rawBm25.get(item.id);
    const bm25Score =
      raw !== undefined
        ? normalizeBm25(raw, best, queryTerms, `${item.abstract} ${item.overview} ${item.content}`)
        : textRan
          ? 0
          : null;
    const candidate: Candidate = {
      item,
      score: fuseScores(vectorScore, bm25Score, config),
      vectorScore,
      bm25Score,
    };
    if (vector) candidate.vector = vector;
    return candidate;
  });
  return config.fusion === 'rrf' ? rankFused(candidates, config) : candidates;
}

/**
 * Reciprocal rank fusion over the candidates: each signal ranks them (an item a signal did not find
 * gets nothing from it) and score = Σ weight / (rrfK + rank), scaled so first on both signals is 1.
 * Only ranks count, so a signal whose scores sit in a narrow band weighs as much as one that spreads.
 */
function rankFused(candidates: Candidate[], config: RetrievalConfig): Candidate[] {
  const ranks = (value: (candidate: Candidate) => number | null) => {
    const found = candidates.filter((candidate) => (value(candidate) ?? 0) > 0);
    found.sort((a, b) => (value(b) ?? 0) - (value(a) ?? 0) || a.item.id - b.item.id);
    return new Map(found.map((candidate, index) => [candidate, index + 1]));
  };
  const vectorRanks = ranks((candidate) => candidate.vectorScore);
  const textRanks = ranks((candidate) => candidate.bm25Score);
  const useVector = vectorRanks.size > 0 ? config.vectorWeight : 0;
  const useText = textRanks.size > 0 ? config.bm25Weight : 0;
  const top = (useVector + useText) / (config.rrfK + 1);
  if (top <= 0) return candidates;
  for (const candidate of candidates) {
    const vectorRank = vectorRanks.get(candidate);
    const textRank = textRanks.get(candidate);
    const sum =
      (vectorRank ? useVector / (config.rrfK + vectorRank) : 0) +
      (textRank ? useText / (config.rrfK + textRank) : 0);
    candidate.score = Math.min(1, Math.max(config.fusedMin, sum / top));
  }
  return candidates;
}
