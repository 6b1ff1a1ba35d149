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
   * Added to the score with the other boosts after the min-score cut (see field-rescore.ts): document
   * priors that order candidates but are no evidence of relevance.
   */
  prior?: number;
  /** The item's stored vector, for MMR. */
  vector?: Float32Array;
}

/** Which signals a search used. */
export type RetrievalMode = 'hybrid' | 'bm25' | 'vector';
