/**
 * Every knob of retrieval, with the defaults of the memory design (docs/memory.md explains each).
 * Pass a partial object to override any of them.
 */
export interface RetrievalConfig {
  /**
   * How the two signals combine: `weighted` sum of scores (with the exact-match floor), or `rrf`,
   * reciprocal rank fusion Σ weight / (rrfK + rank) scaled to [0, 1] (see candidates.ts).
   */
  fusion: 'weighted' | 'rrf';
  rrfK: number;
  /** Fusion weights: fused = vectorWeight · vector + bm25Weight · bm25. */
  vectorWeight: number;
  bm25Weight: number;
  /**
   * Exact-match floor: when bm25 ≥ exactMatchBm25, fused = max(fused, exactMatchFactor · bm25). Above 1
   * it never applies (the default: with BM25 scaled relative to the best hit, the floor pinned BM25's
   * first hit to the top whatever the vectors said; see docs/memory.md for the measurement).
   */
  exactMatchBm25: number;
  exactMatchFactor: number;
  /**
   * How BM25 is scaled into [0, 1]: `relative` to the query's best hit, or that times the share of
   * the query's terms the item holds (`coverage`, so only items holding the whole query are exact matches).
   */
  bm25Normalization: 'relative' | 'coverage';
  /** BM25 weight of each indexed column: abstract, overview, content (also BM25F's field weights). */
  bm25ColumnWeights: readonly [number, number, number];
  /**
   * Second stage over the candidates (see field-rescore.ts): `bm25f` recomputes their text score as
   * BM25F with per-column length normalisation and adds the length prior; `fts` keeps FTS5's bm25().
   * Applies to `fusion: 'weighted'`.
   */
  fieldScoring: 'bm25f' | 'fts';
  /** BM25F term-frequency saturation. */
  bm25fK1: number;
  /** BM25F length normalisation b of each column (abstract, overview, content): 0 none, 1 full. */
  bm25fColumnB: readonly [number, number, number];
  /**
   * With BM25F: score += lengthPrior · (ln(1 + tokens of the content) − its mean over the candidates),
   * a document length prior centred so it reorders without raising scores. 0 turns it off.
   */
  lengthPrior: number;
  /** With BM25F: score −= questionPenalty · (share of the content's sentences that are questions). 0 turns it off. */
  questionPenalty: number;
  /**
   * Query terms found in more than max(bm25CommonTermMinItems, bm25CommonTermShare · items) items are
   * left out of the full-text match: they weigh little in BM25 and cost the most to match. 1 keeps all.
   */
  bm25CommonTermShare: number;
  bm25CommonTermMinItems: number;
  /**
   * Pseudo-relevance feedback: the best feedbackDocs BM25 hits give feedbackTerms expansion terms,
   * searched again and added at feedbackWeight (see feedback.ts). feedbackTerms 0 turns it off.
   */
  feedbackDocs: number;
  feedbackTerms: number;
  feedbackWeight: number;
  /** Fused scores are clamped into [fusedMin, 1]. */
  fusedMin: number;
  /** Candidates taken from each of vector and BM25: max(candidatePoolMin, candidatePoolFactor · limit). */
  candidatePoolMin: number;
  candidatePoolFactor: number;
  /** Dropped before anything else when the fused score is lower. */
  minScore: number;
  /** Opt-in LLM rerank of the top rerankFactor · limit: score = rerankWeight · llm + (1 - rerankWeight) · score. */
  rerank: boolean;
  rerankFactor: number;
  rerankWeight: number;
  /** score += recencyWeight · 0.5^(age / recencyHalfLifeDays). */
  recencyWeight: number;
  recencyHalfLifeDays: number;
  /** score *= importanceBase + (1 - importanceBase) · importance. */
  importanceBase: number;
  /** score *= 1 / (1 + lengthPenalty · log2(chars / lengthAnchorChars)) for texts longer than the anchor. */
  lengthAnchorChars: number;
  lengthPenalty: number;
  /** Apply the decay multiplier (see decay.ts). */
  decay: boolean;
  /** Dropped after boosts when the score is lower. */
  hardMinScore: number;
  /** MMR: λ · relevance − (1 − λ) · max similarity to what is already chosen. 1 turns diversity off. */
  mmrLambda: number;
  /** Hierarchical: categories searched first, and what counts as sufficient. */
  topCategories: number;
  sufficiencyScore: number;
  /** Results at or above sufficiencyScore needed (capped at the limit) to stop before widening. */
  sufficiencyCount: number;
  /** Count the returned items as accessed (reinforcement) and move tiers. Off for read-only tools. */
  recordAccess: boolean;
}

export const DEFAULT_RETRIEVAL_CONFIG: Readonly<RetrievalConfig> = Object.freeze({
  fusion: 'weighted',
  rrfK: 60,
  vectorWeight: 0.35,
  bm25Weight: 0.65,
  exactMatchBm25: 2,
  exactMatchFactor: 0.92,
  bm25Normalization: 'relative',
  bm25ColumnWeights: [1, 0.5, 1] as const,
  fieldScoring: 'bm25f',
  bm25fK1: 0.4,
  bm25fColumnB: [0, 1, 0] as const,
  lengthPrior: 0.1,
  questionPenalty: 0.1,
  bm25CommonTermShare: 0.1,
  bm25CommonTermMinItems: 1_000,
  feedbackDocs: 3,
  feedbackTerms: 0,
  feedbackWeight: 0.3,
  fusedMin: 0.1,
  candidatePoolMin: 20,
  candidatePoolFactor: 2,
  minScore: 0.3,
  rerank: false,
  rerankFactor: 2,
  rerankWeight: 0.6,
  recencyWeight: 0.1,
  recencyHalfLifeDays: 14,
  importanceBase: 0.7,
  lengthAnchorChars: 500,
  lengthPenalty: 0.5,
  decay: true,
  hardMinScore: 0.35,
  mmrLambda: 0.85,
  topCategories: 3,
  sufficiencyScore: 0.5,
  sufficiencyCount: 3,
  recordAccess: true,
});

/** Longest query accepted, in characters; a longer one is refused, not silently cut. */
export const MAX_QUERY_CHARS = 8_000;
/** Most results one search may ask for. */
export const MAX_LIMIT = 100;
