import { dot } from '../embed/embedder.js';
import { termJaccard } from '../text/tokens.js';

/** Two facts of one batch with abstracts at least this similar are the same fact. */
export const BATCH_DUPLICATE_COSINE = 0.85;

/**
 * Indexes of the facts to keep: each is dropped when its abstract is within `threshold` of an
 * earlier kept one (cosine of abstract vectors, or term overlap when there are none).
 */
export function batchDedup(
  abstracts: readonly string[],
  vectors: readonly Float32Array[] | undefined,
  threshold = BATCH_DUPLICATE_COSINE,
): { kept: number[]; duplicateOf: Map<number, number> } {
  const kept: number[] = [];
  const duplicateOf = new Map<number, number>();
  abstracts.forEach((abstract, index) => {
    const twin = kept.find((other) => {
      const a = vectors?.[index];
      const b = vectors?.[other];
      const similarity = a && b ? dot(a, b) : termJaccard(abstract, abstracts[other] ?? '');
      return similarity >= threshold;
    });
    if (twin === undefined) kept.push(index);
    else duplicateOf.set(index, twin);
  });
  return { kept, duplicateOf };
}
