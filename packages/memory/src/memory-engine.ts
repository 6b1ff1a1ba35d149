import { type Clock, systemClock } from '@openlegion/infra/clock';
import { transaction } from '@openlegion/infra/sqlite';
import { OpenLegionError } from '@openlegion/protocol';
import type { Embedder } from './embed/embedder.js';
import type { ChatLlm } from './llm/chat-llm.js';
import type { FactInput, MemoryItem } from './model/memory-item.js';
import { GLOBAL_SCOPE, parseScope } from './model/scope.js';
import { backfillVectors, type EmbedProgress, embedProgress } from './ops/backfill.js';
import { type DoctorReport, memoryDoctor } from './ops/doctor.js';
import { exportJsonl, type ImportOptions, importJsonl } from './ops/jsonl.js';
import { reembed } from './ops/reembed.js';
import { type MemoryStats, memoryStats } from './ops/stats.js';
import { flatSearch, hierarchicalSearch, prepareSearch, type SearchResult } from './retrieval/search.js';
import type { SearchRequest } from './retrieval/search-request.js';
import { nextTier } from './retrieval/tier-policy.js';
import { CategoryStore, type MemoryCategory } from './store/category-store.js';
import { type ItemFilter, ItemRepository } from './store/item-repository.js';
import { type LlmPaths, llmFor, type MemoryContext } from './store/memory-context.js';
import { openMemoryDb } from './store/memory-db.js';
import { type DEFAULT_VECTOR_SCAN_MIN_ITEMS, VectorIndex } from './store/vector-index.js';
import { type Extraction, extractMemories } from './write/extract.js';
import { removeItem } from './write/item-writer.js';
import { type StoreFactsOptions, type StoreReport, storeFactsBatch } from './write/store-facts.js';

export interface MemoryEngineOptions {
  /** The SQLite file (`<dataDir>/memory.db`), or `:memory:`. */
  file: string;
  /** Without one, retrieval is BM25 only and dedup compares words. */
  embedder?: Embedder;
  /** Without one, extraction, dedup and rerank use heuristics. */
  llm?: ChatLlm;
  clock?: Clock;
  /** Scopes searched when a request names none, and where facts without a scope go (the first). */
  defaultScopes?: readonly string[];
  /**
   * From this many items on, vector search scans an in-memory int8 copy of the vectors instead of
   * sqlite-vec's KNN (default {@link DEFAULT_VECTOR_SCAN_MIN_ITEMS}; 0 always, Infinity never).
   */
  vectorScanMinItems?: number;
  /**
   * Which paths consult `llm`: extraction and dedup (default on) and rerank (`request`, the default,
   * leaves it to each search's config; `always`, `never`).
   */
  llmPaths?: Partial<LlmPaths>;
  /** Admission control on saves that do not say (default off). */
  admission?: boolean;
  /**
   * `throw` (default): a failing embedder or another embedder's store fails the call. `bm25`: the call
   * goes on lexically, the failure shows in stats and doctor, and {@link MemoryEngine.backfill}
   * embeds what was left without a vector (what a running agent wants).
   */
  onEmbedderError?: 'throw' | 'bm25';
}

/**
 * One agent's memory: a SQLite file with items, categories, FTS5 and sqlite-vec indexes, and every
 * operation on them. Open with {@link MemoryEngine.open}; close when done.
 *
 * @example
 * const memory = MemoryEngine.open({ file: '/data/memory.db', embedder: createLocalEmbedder(), defaultScopes: defaultScopes('a') });
 * await memory.save([{ content: 'The user prefers tabs over spaces.' }]);
 * const { hits } = await memory.search({ query: 'indentation preference' });
 */
export class MemoryEngine {
  readonly #context: MemoryContext;
  readonly #defaultScopes: readonly string[];
  readonly #admission: boolean;

  private constructor(context: MemoryContext, defaultScopes: readonly string[], admission: boolean) {
    this.#context = context;
    this.#defaultScopes = defaultScopes;
    this.#admission = admission;
  }

  /** @throws {OpenLegionError} `MEM_STORE_UNAVAILABLE`, `STORE_SCHEMA_NEWER`, `MEM_SCOPE_INVALID`. */
  static open(options: MemoryEngineOptions): MemoryEngine {
    const scopes = (options.defaultScopes ?? [GLOBAL_SCOPE]).map(parseScope);
    const db = openMemoryDb(options.file);
    const vectors = new VectorIndex(db, options.vectorScanMinItems);
    const context: MemoryContext = {
      db,
      items: new ItemRepository(db),
      vectors,
      categories: new CategoryStore(db, vectors),
      embedder: options.embedder,
      llm: options.llm,
      clock: options.clock ?? systemClock,
      llmPaths: { extract: true, dedup: true, rerank: 'request', ...options.llmPaths },
      onEmbedderError: options.onEmbedderError ?? 'throw',
      embedStatus: { running: false, error: null },
    };
    return new MemoryEngine(context, scopes.length > 0 ? scopes : [GLOBAL_SCOPE], options.admission ?? false);
  }

  /** Which embedder and LLM are active: `null` means BM25-only retrieval and heuristic writing. */
  get modes(): { embedder: string | null; llm: string | null } {
    return { embedder: this.#context.embedder?.id ?? null, llm: this.#context.llm?.model ?? null };
  }

  get defaultScopes(): readonly string[] {
    return this.#defaultScopes;
  }

  /** Hybrid search over all categories in scope, then the post-processing pipeline. */
  async search(request: SearchRequest): Promise<SearchResult> {
    return flatSearch(this.#context, await prepareSearch(this.#context, request, this.#defaultScopes));
  }

  /** Categories first, a sufficiency check, and widening to all when it fails. */
  async searchHierarchical(request: SearchRequest): Promise<SearchResult> {
    return hierarchicalSearch(
      this.#context,
      await prepareSearch(this.#context, request, this.#defaultScopes),
    );
  }

  /** Store facts (dedup and, when enabled, admission control); facts without a scope go to the first default scope. */
  save(facts: readonly FactInput[], options?: StoreFactsOptions): Promise<StoreReport> {
    const withAdmission =
      options?.admission === undefined && this.#admission
        ? { ...options, admission: { enabled: true } }
        : options;
    return storeFactsBatch(this.#context, facts, this.#defaultScopes[0] ?? GLOBAL_SCOPE, withAdmission);
  }

  /** Extract up to five memories from a transcript (LLM or heuristic) and store them. */
  async extractAndSave(
    transcript: string,
    options: StoreFactsOptions & { scope?: string; source?: FactInput['source']; sourceRef?: string } = {},
  ): Promise<{ extraction: Extraction; report: StoreReport }> {
    const extraction = await extractMemories(transcript, llmFor(this.#context, 'extract'), options.signal);
    const facts = extraction.facts.map((fact) => ({
      ...fact,
      source: options.source ?? 'flush',
      ...(options.scope ? { scope: options.scope } : {}),
      ...(options.sourceRef ? { sourceRef: options.sourceRef } : {}),
    }));
    return { extraction, report: await this.save(facts, options) };
  }

  get(id: number): MemoryItem | undefined {
    return this.#context.items.get(id);
  }

  list(filter: ItemFilter = {}): MemoryItem[] {
    return this.#context.items.list({
      ...filter,
      ...(filter.scopes ? { scopes: filter.scopes.map(parseScope) } : {}),
    });
  }

  categories(): MemoryCategory[] {
    return this.#context.categories.list();
  }

  /** @throws {OpenLegionError} `MEM_ITEM_NOT_FOUND`. */
  delete(id: number): void {
    const item = this.#context.items.get(id);
    if (!item) throw new OpenLegionError('MEM_ITEM_NOT_FOUND', `no memory item ${id}`, { details: { id } });
    transaction(this.#context.db, () => removeItem(this.#context, item, this.#context.clock.now()));
  }

  stats(): MemoryStats {
    return memoryStats(this.#context);
  }

  /** JSON lines, one item each, history included. */
  exportJsonl(): Generator<string> {
    return exportJsonl(this.#context);
  }

  importJsonl(text: string, options?: ImportOptions): Promise<{ imported: number }> {
    return importJsonl(this.#context, text, options);
  }

  doctor(): Promise<DoctorReport> {
    return memoryDoctor(this.#context);
  }

  /** Rebuild all vectors with the active embedder (after changing it). */
  reembed(signal?: AbortSignal): Promise<{ items: number; embedder: string; dimensions: number }> {
    return reembed(this.#context, signal);
  }

  /**
   * Embed, a batch at a time, the live items without a vector of the active embedder (after the
   * embedder changed, a restart mid-way, or saves made while it was down); search works throughout.
   * Resolves when none is left; a failure is kept for stats and doctor and rethrown.
   */
  backfill(options?: {
    batchSize?: number;
    signal?: AbortSignal;
    onBatch?: (progress: EmbedProgress) => void;
  }): Promise<{ embedded: number }> {
    return backfillVectors(this.#context, options);
  }

  /** Live items with and without a vector of the active embedder. */
  embedProgress(): EmbedProgress {
    return embedProgress(this.#context);
  }

  /** Apply decay-driven demotions to every live item (a periodic sweep); returns how many moved. */
  sweepTiers(): number {
    const now = this.#context.clock.now();
    let moved = 0;
    transaction(this.#context.db, () => {
      for (const item of this.#context.items.list()) {
        const tier = nextTier(item, now);
        if (tier === item.tier) continue;
        this.#context.items.setTier(item.id, tier);
        moved++;
      }
    });
    return moved;
  }

  close(): void {
    this.#context.db.close();
  }
}
