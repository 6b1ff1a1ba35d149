import type { MemoryItem } from '../model/memory-item.js';

/** An item on its way through the retrieval pipeline. */
export interface Candidate {
  item: MemoryItem;
  /** The running score: fused first, then adjusted by each pipeline step. */
  score: number;
  /** Cosine similarity to the query in [0, 1]; null without an embedder. */
  vectorScore: number | null;
  /** Normalised BM25 in [0, 1]; null when the item did not match the text query. */
  bm25Score: number | null;
  /**
   * Document priors (see field-rescore.ts), added to the score by the post-processing after the
   * min-score cut; from then on their share of the score. They order candidates but are no evidence
   * of relevance, so thresholds and the sufficiency check compare score − prior.
   */
  prior?: number;
  /** The item's stored vector, for MMR. */
  vector?: Float32Array;
}

/** Which signals a search used. */
export type RetrievalMode = 'hybrid' | 'bm25' | 'vector';
