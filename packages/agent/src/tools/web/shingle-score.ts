/**
 * The metric of scrapinghub/article-extraction-benchmark, implemented exactly so that our numbers
 * sit beside the published ones: texts become multisets of word 4-gram shingles, each page's
 * true/false positives and false negatives are normalised to sum to 1 (every page weighs the same),
 * precision and recall are means over pages, and F1 comes from those two means.
 */

/** Counts of one page, normalised so that tp + fp + fn = 1 (all 0 for two empty texts). */
export interface PageCounts {
  tp: number;
  fp: number;
  fn: number;
}

export interface ShingleScore {
  f1: number;
  precision: number;
  recall: number;
}

const SHINGLE_SIZE = 4;
/** Python's `\w` on str (the benchmark uses `re`): letters, numbers of every kind and `_`, not combining marks. */
const WORD = /[\p{L}\p{N}_]+/gu;

/** The multiset of token 4-grams of a text; a text of fewer than 4 tokens is one shingle. */
export function shingles(text: string): Map<string, number> {
  const tokens = text.match(WORD) ?? [];
  const counts = new Map<string, number>();
  const add = (key: string) => counts.set(key, (counts.get(key) ?? 0) + 1);
  if (tokens.length < SHINGLE_SIZE) {
    add(tokens.join(' '));
    return counts;
  }
  for (let i = 0; i + SHINGLE_SIZE <= tokens.length; i++) add(tokens.slice(i, i + SHINGLE_SIZE).join(' '));
  return counts;
}

/** One page's counts of an extracted text against the reference, normalised per page. */
export function pageCounts(expected: string, predicted: string): PageCounts {
  const truth = shingles(expected);
  const pred = shingles(predicted);
  let tp = 0;
  let fp = 0;
  let fn = 0;
  for (const [key, count] of pred) {
    const want = truth.get(key) ?? 0;
    tp += Math.min(want, count);
    fp += Math.max(0, count - want);
  }
  for (const [key, count] of truth) fn += Math.max(0, count - (pred.get(key) ?? 0));
  const sum = tp + fp + fn;
  return sum === 0 ? { tp: 0, fp: 0, fn: 0 } : { tp: tp / sum, fp: fp / sum, fn: fn / sum };
}

/** Mean precision and mean recall over pages, and the F1 of those two means. */
export function shingleScore(pages: readonly PageCounts[]): ShingleScore {
  const precisions: number[] = [];
  const recalls: number[] = [];
  for (const { tp, fp, fn } of pages) {
    const perfect = fp === 0 && fn === 0;
    if (tp + fp > 0 || perfect) precisions.push(perfect ? 1 : tp / (tp + fp));
    if (tp + fn > 0 || perfect) recalls.push(perfect ? 1 : tp / (tp + fn));
  }
  const precision = mean(precisions);
  const recall = mean(recalls);
  const f1 = precision + recall === 0 ? 0 : (2 * precision * recall) / (precision + recall);
  return { f1, precision, recall };
}

const mean = (values: readonly number[]): number =>
  values.length === 0 ? 0 : values.reduce((sum, value) => sum + value, 0) / values.length;
