import { searchText, type TextHit } from '../store/fts-index.js';
import type { MemoryContext } from '../store/memory-context.js';
import { documentFrequencies, indexedCount } from '../store/term-stats.js';
import { contentTerms, ftsMatch } from '../text/tokens.js';
import type { CandidateQuery } from './candidates.js';
import type { RetrievalConfig } from './retrieval-config.js';
import { commonTermCutoff } from './selective-terms.js';

export type FeedbackConfig = Pick<
  RetrievalConfig,
  | 'feedbackDocs'
  | 'feedbackTerms'
  | 'feedbackWeight'
  | 'bm25ColumnWeights'
  | 'bm25CommonTermShare'
  | 'bm25CommonTermMinItems'
>;

/** Terms looked up per expansion term wanted: the best by in-hit weight, before idf reorders them. */
const SHORTLIST_FACTOR = 3;

/**
 * Pseudo-relevance feedback (RM3-like): the best `feedbackDocs` BM25 hits are taken as relevant,
 * their most telling terms (frequency in those hits, weighted by each hit's score, times idf) become
 * a second query, and its BM25 joins the first: score = first / best first + feedbackWeight · second /
 * best second, on the first query's scale. It finds items that answer the query in other words
 * than the query's own, when the best hits share those words.
 */
export function withFeedback(
  context: MemoryContext,
  hits: readonly TextHit[],
  queryTerms: readonly string[],
  query: CandidateQuery,
  config: FeedbackConfig,
): TextHit[] {
  const best = hits[0]?.bm25 ?? 0;
  if (config.feedbackTerms <= 0 || config.feedbackWeight <= 0 || best <= 0) return [...hits];
  const expansion = feedbackTerms(context, hits.slice(0, config.feedbackDocs), new Set(queryTerms), config);
  if (expansion.length === 0) return [...hits];
  const second = searchText(
    context.db,
    ftsMatch(expansion),
    query.pool,
    query.scopes,
    query.categories,
    config.bm25ColumnWeights,
  );
  const secondBest = second[0]?.bm25 ?? 0;
  const combined = new Map(hits.map((hit) => [hit.id, hit.bm25 / best]));
  if (secondBest > 0) {
    for (const hit of second) {
      combined.set(hit.id, (combined.get(hit.id) ?? 0) + (config.feedbackWeight * hit.bm25) / secondBest);
    }
  }
  return [...combined]
    .map(([id, score]) => ({ id, bm25: score * best }))
    .sort((a, b) => b.bm25 - a.bm25 || a.id - b.id)
    .slice(0, query.pool);
}

function feedbackTerms(
  context: MemoryContext,
  top: readonly TextHit[],
  exclude: ReadonlySet<string>,
  config: FeedbackConfig,
): string[] {
  const best = top[0]?.bm25 ?? 0;
  const items = context.items.getMany(top.map((hit) => hit.id));
  const weights = new Map<string, number>();
  items.forEach((item, index) => {
    const terms = contentTerms(`${item.abstract} ${item.overview} ${item.content}`);
    const docWeight = (top[index]?.bm25 ?? 0) / best;
    for (const term of terms) {
      if (exclude.has(term) || /^\p{N}+$/u.test(term)) continue;
      weights.set(term, (weights.get(term) ?? 0) + docWeight / terms.length);
    }
  });
  const total = indexedCount(context.db);
  const cutoff = commonTermCutoff(total, config);
  const shortlist = [...weights]
    .sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1))
    .slice(0, config.feedbackTerms * SHORTLIST_FACTOR);
  const frequencies = documentFrequencies(
    context.db,
    shortlist.map(([term]) => term),
  );
  const ranked = shortlist
    .map(([term, weight]) => {
      const df = frequencies.get(term) ?? 0;
      // A term in one item only points back at the hit it came from, and a common one costs more
      // to match than it adds: neither expands the query.
      const idf = df > 1 && df <= cutoff ? Math.log((total - df + 0.5) / (df + 0.5)) : 0;
      return { term, df, score: weight * idf };
    })
    .filter((entry) => entry.score > 0)
    .sort((a, b) => b.score - a.score || (a.term < b.term ? -1 : 1));
  // The second query's cost is the items its terms are in: keep their sum within twice the cutoff.
  const chosen: string[] = [];
  let postings = 0;
  for (const entry of ranked) {
    if (chosen.length >= config.feedbackTerms) break;
    if (postings + entry.df > 2 * cutoff) continue;
    postings += entry.df;
    chosen.push(entry.term);
  }
  return chosen;
}
