import { transaction } from '@openlegion/infra/sqlite';
import type { MemoryItem } from '../model/memory-item.js';
import { embedChecked, type MemoryContext } from '../store/memory-context.js';
import type { Candidate, RetrievalMode } from './candidate.js';
import { collectCandidates } from './candidates.js';
import { rescoreByFields } from './field-rescore.js';
import { postProcess, relevance } from './post-process.js';
import { llmRerank, type RerankOutcome } from './rerank.js';
import { DEFAULT_RETRIEVAL_CONFIG, type RetrievalConfig } from './retrieval-config.js';
import { checkSearchRequest, type SearchRequest } from './search-request.js';
import { nextTier } from './tier-policy.js';

/** One result: the item, its final score and the two signals it was fused from. */
export interface SearchHit {
  item: MemoryItem;
  score: number;
  vectorScore: number | null;
  bm25Score: number | null;
}

/** Results and how they were found. */
export interface SearchResult {
  hits: SearchHit[];
  /** Signals used: `bm25` alone when there is no embedder. */
  mode: RetrievalMode;
  strategy: 'flat' | 'hierarchical';
  /** The active embedder's id, or null (BM25 only). */
  embedder: string | null;
  /** Hierarchical: the categories searched first. */
  categoriesSearched: string[] | null;
  /** Hierarchical: true when those were not sufficient and the search widened to all. */
  widened: boolean;
  rerank: 'off' | RerankOutcome['used'];
}

interface Prepared {
  query: string;
  limit: number;
  scopes: string[];
  categories: string[] | undefined;
  vector: Float32Array | undefined;
  config: RetrievalConfig;
}

/** Validate the request and embed the query (once, shared by every stage). */
export async function prepareSearch(
  context: MemoryContext,
  request: SearchRequest,
  defaultScopes: readonly string[],
) {
  const checked = checkSearchRequest(request, defaultScopes);
  for (const category of checked.categories ?? []) context.categories.require(category);
  const config: RetrievalConfig = { ...DEFAULT_RETRIEVAL_CONFIG, ...request.config };
  // The engine's setting wins over the request's: the operator chose what a search may spend.
  const rerankPath = context.llmPaths?.rerank ?? 'request';
  if (rerankPath !== 'request') config.rerank = rerankPath === 'always';
  const vector = (await embedChecked(context, [checked.query], request.signal))?.[0];
  return { ...checked, vector, config } satisfies Prepared;
}

/** Vector + BM25 over everything in scope, then the post-processing pipeline. */
export async function flatSearch(context: MemoryContext, prepared: Prepared): Promise<SearchResult> {
  const rerank: RerankOutcome = { used: 'skipped' };
  const candidates = await rankWithin(context, prepared, prepared.categories, rerank);
  return finish(context, prepared, candidates, {
    strategy: 'flat',
    categoriesSearched: null,
    widened: false,
    rerank,
  });
}

/**
 * Top categories by vector, hybrid search within them, and a sufficiency check: if fewer than
 * min(limit, sufficiencyCount) results reach sufficiencyScore, widen to every category and merge.
 * Without an embedder there are no category vectors, so it is a flat search.
 */
export async function hierarchicalSearch(context: MemoryContext, prepared: Prepared): Promise<SearchResult> {
  const { config, vector, limit } = prepared;
  if (!vector) return flatSearch(context, prepared);
  const allowed = prepared.categories ? new Set(prepared.categories) : undefined;
  const top = context.categories
    .byIds(context.vectors.knnCategories(vector, config.topCategories * 4).map((hit) => hit.id))
    .filter((category) => category.itemCount > 0 && (!allowed || allowed.has(category.name)))
    .slice(0, config.topCategories)
    .map((category) => category.name);
  if (top.length === 0) return flatSearch(context, prepared);
  const rerank: RerankOutcome = { used: 'skipped' };
  const within = await rankWithin(context, prepared, top, rerank);
  const sufficient = within.filter((candidate) => relevance(candidate) >= config.sufficiencyScore).length;
  const meta = { strategy: 'hierarchical' as const, categoriesSearched: top, rerank };
  if (sufficient >= Math.min(limit, config.sufficiencyCount)) {
    return finish(context, prepared, within, { ...meta, widened: false });
  }
  const everywhere = await rankWithin(context, prepared, prepared.categories, rerank);
  const merged = new Map<number, Candidate>();
  for (const candidate of [...within, ...everywhere]) {
    const seen = merged.get(candidate.item.id);
    if (!seen || seen.score < candidate.score) merged.set(candidate.item.id, candidate);
  }
  const ranked = [...merged.values()].sort((a, b) => b.score - a.score).slice(0, limit);
  return finish(context, prepared, ranked, { ...meta, widened: true });
}

async function rankWithin(
  context: MemoryContext,
  prepared: Prepared,
  categories: readonly string[] | undefined,
  rerankOutcome: RerankOutcome,
): Promise<Candidate[]> {
  const { config, limit, query, scopes, vector } = prepared;
  const pool = Math.max(config.candidatePoolMin, config.candidatePoolFactor * limit);
  const collected = collectCandidates(context, { text: query, vector, scopes, categories, pool }, config);
  const candidates =
    config.fusion === 'weighted' ? rescoreByFields(context.db, query, collected, config) : collected;
  const rerank =
    config.rerank && context.llm ? llmRerank(context.llm, query, config, limit, rerankOutcome) : undefined;
  return postProcess(candidates, { config, now: context.clock.now(), limit, ...(rerank ? { rerank } : {}) });
}

function finish(
  context: MemoryContext,
  prepared: Prepared,
  candidates: Candidate[],
  meta: Pick<SearchResult, 'strategy' | 'categoriesSearched' | 'widened'> & { rerank: RerankOutcome },
): SearchResult {
  const hits = candidates.map(({ item, score, vectorScore, bm25Score }) => ({
    item,
    score,
    vectorScore,
    bm25Score,
  }));
  if (prepared.config.recordAccess) recordAccess(context, hits);
  const textOnly = !prepared.vector;
  return {
    hits,
    mode: textOnly ? 'bm25' : 'hybrid',
    strategy: meta.strategy,
    embedder: context.embedder?.id ?? null,
    categoriesSearched: meta.categoriesSearched,
    widened: meta.widened,
    rerank: prepared.config.rerank && context.llm ? meta.rerank.used : 'off',
  };
}

/** Reinforcement: count the returned items as accessed now and move their tiers. */
function recordAccess(context: MemoryContext, hits: SearchHit[]): void {
  const now = context.clock.now();
  transaction(context.db, () => {
    for (const hit of hits) {
      const touched = { ...hit.item, accessCount: hit.item.accessCount + 1, lastAccessedAt: now };
      const tier = nextTier(touched, now);
      context.items.recordAccess(hit.item.id, now, tier);
      Object.assign(hit.item, { accessCount: touched.accessCount, lastAccessedAt: now, tier });
    }
  });
}
