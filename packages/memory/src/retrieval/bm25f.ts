/** One field of an item as BM25F sees it: its term counts and length, with the field's settings. */
export interface Bm25fField {
  /** Occurrences of each (stemmed) term in the field. */
  counts: ReadonlyMap<string, number>;
  /** Tokens in the field. */
  length: number;
  /** Average tokens of this field over the collection. */
  averageLength: number;
  /** How much an occurrence here counts (BM25F field boost). */
  weight: number;
  /** Length normalisation of this field, 0 (none) to 1 (full). */
  b: number;
}

/** A query term with its inverse document frequency. */
export interface WeightedTerm {
  term: string;
  idf: number;
}

/**
 * BM25F (Robertson, Zaragoza and Taylor 2004): each field's term count is length-normalised with
 * the field's own `b` and weighted, the sum saturates once with `k1`, and the terms' idf-weighted
 * saturations add up. Unlike FTS5's bm25(), which normalises every column by the whole row's length,
 * a field that is context (long and shared with neighbours) can be normalised without penalising the
 * item's own short text.
 */
export function bm25fScore(
  terms: readonly WeightedTerm[],
  fields: readonly Bm25fField[],
  k1: number,
): number {
  let score = 0;
  for (const { term, idf } of terms) {
    let weighted = 0;
    for (const field of fields) {
      const count = field.counts.get(term) ?? 0;
      if (count === 0 || field.weight <= 0) continue;
      const relative = field.averageLength > 0 ? field.length / field.averageLength : 1;
      weighted += (field.weight * count) / (1 - field.b + field.b * relative);
    }
    if (weighted > 0) score += (idf * weighted * (k1 + 1)) / (weighted + k1);
  }
  return score;
}

/**
 * Inverse document frequency that stays positive for terms in most items (Lucene's form):
 * log(1 + (N − n + ½) / (n + ½)).
 */
export function bm25Idf(items: number, documentFrequency: number): number {
  const n = Math.min(Math.max(documentFrequency, 0), Math.max(items, 0));
  return Math.log(1 + (items - n + 0.5) / (n + 0.5));
}
