import { ALWAYS_MERGE } from '../model/category-rules.js';
import type { NormalizedFact } from '../model/memory-item.js';
import { searchText } from '../store/fts-index.js';
import type { MemoryContext } from '../store/memory-context.js';
import { ftsQuery, termJaccard } from '../text/tokens.js';
import type { SimilarItem } from './dedup-decision.js';

const SIMILAR_CANDIDATES = 3;

/**
 * The stored live items of the fact's scope and category nearest to it, best first: by vector when
 * there is one, else by BM25 candidates compared on term overlap. For a category that always
 * merges, its first item stands in when nothing is near.
 */
export function findSimilar(
  context: MemoryContext,
  fact: NormalizedFact,
  vector: Float32Array | undefined,
): SimilarItem[] {
  const scopes = [fact.scope];
  const categories = [fact.category];
  let similar: SimilarItem[];
  if (vector) {
    const hits = context.vectors.knn(vector, SIMILAR_CANDIDATES, scopes, categories);
    const items = new Map(context.items.getMany(hits.map((hit) => hit.id)).map((item) => [item.id, item]));
    similar = hits.flatMap((hit) => {
      const item = items.get(hit.id);
      return item ? [{ item, similarity: hit.similarity }] : [];
    });
  } else {
    const hits = searchText(
      context.db,
      ftsQuery(`${fact.abstract} ${fact.content}`),
      SIMILAR_CANDIDATES,
      scopes,
      categories,
    );
    similar = context.items
      .getMany(hits.map((hit) => hit.id))
      .map((item) => ({
        item,
        similarity: termJaccard(`${fact.abstract} ${fact.content}`, `${item.abstract} ${item.content}`),
      }))
      .sort((a, b) => b.similarity - a.similarity);
  }
  if (similar.length === 0 && ALWAYS_MERGE.has(fact.category)) {
    const [first] = context.items.list({ scopes, categories, limit: 1 });
    if (first) similar = [{ item: first, similarity: 0 }];
  }
  return similar;
}
