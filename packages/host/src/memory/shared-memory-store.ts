import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import type { Clock } from '@openlegion/infra/clock';
import { type Embedder, MemoryEngine, type MemoryItem } from '@openlegion/memory';
import {
  GLOBAL_MEMORY_SCOPE,
  isSharedMemoryScope,
  OpenLegionError,
  type SharedMemoryItem,
  type SharedMemorySave,
  type SharedMemorySaveAnswer,
  type SharedMemoryScopesAnswer,
  type SharedMemorySearch,
  type SharedMemorySearchAnswer,
} from '@openlegion/protocol';

/** How a writer is recorded on an item (`sourceRef`): the host sets it from the caller's token. */
const WRITER_PREFIX = 'agent:';

export interface SharedMemoryStoreOptions {
  /** `<data_dir>/shared-memory.db`, or `:memory:`. */
  file: string;
  /**
   * The seam for real embeddings: the local hashed-word embedder today; an embedder that calls the
   * host's own `/v1/embeddings` path when agents embed through the host.
   */
  embedder: Embedder;
  clock: Clock;
  /** Live items one agent may have written (`limits.shared_memory_items_per_agent`). */
  itemsPerAgent: number;
}

/**
 * The mesh's shared memory scopes (`global`, `squad:NAME`) in one memory engine store owned by the
 * host. Each item records its writer; agents may delete only what they wrote, and each may hold at
 * most `itemsPerAgent` live items, counted here (a scan at open, then kept as writes land).
 */
export class SharedMemoryStore {
  readonly #options: SharedMemoryStoreOptions;
  readonly #written = new Map<string, number>();
  #opened: MemoryEngine | undefined;
  #closed = false;

  /** Nothing is opened until {@link open} or the first call: building the host touches no file. */
  constructor(options: SharedMemoryStoreOptions) {
    this.#options = options;
  }

  /**
   * Open the store (at the host's start, so a data dir it cannot write fails the start) and count
   * each writer's live items. Idempotent.
   * @throws {OpenLegionError} `MEM_STORE_UNAVAILABLE`, `STORE_SCHEMA_NEWER`.
   */
  open(): void {
    this.#engine();
  }

  #engine(): MemoryEngine {
    if (this.#opened) return this.#opened;
    // A call racing the host's stop must not open the file again behind it.
    if (this.#closed)
      throw new OpenLegionError(
        'MEM_STORE_UNAVAILABLE',
        'the shared memory store is closed: the host is stopping',
      );
    const { file, embedder, clock } = this.#options;
    if (file !== ':memory:') mkdirSync(dirname(file), { recursive: true });
    const engine = MemoryEngine.open({ file, embedder, clock, defaultScopes: [GLOBAL_MEMORY_SCOPE] });
    for (const item of engine.list()) this.#count(writerOf(item), 1);
    this.#opened = engine;
    return engine;
  }

  /** Which embedder the store searches with (its id), for status and doctor. */
  get embedder(): string | null {
    return this.#engine().modes.embedder;
  }

  async search(
    scope: string,
    request: SharedMemorySearch,
    signal?: AbortSignal,
  ): Promise<SharedMemorySearchAnswer> {
    const result = await this.#engine().search({
      query: request.query,
      limit: request.limit,
      scopes: [checkedScope(scope)],
      ...(request.category ? { categories: [request.category] } : {}),
      ...(signal ? { signal } : {}),
    });
    return { scope, hits: result.hits.map(({ item, score }) => ({ item: toShared(item), score })) };
  }

  /**
   * Save one fact to `scope` as `writer` (an agent's name, or null for the operator).
   * @throws {OpenLegionError} `MESH_QUOTA_EXCEEDED` when an agent is at its item quota.
   */
  async save(scope: string, writer: string | null, fact: SharedMemorySave): Promise<SharedMemorySaveAnswer> {
    const [answer] = await this.saveMany(scope, writer, [fact]);
    return answer ?? { scope, action: 'skipped', id: null, reason: 'nothing saved' };
  }

  /**
   * Save facts of one category to `scope` as `writer`, all or none: one write of the engine (the
   * lessons of a fleet spawn's session are captured whole). The quota is checked for all of them.
   * @throws {OpenLegionError} `MESH_QUOTA_EXCEEDED` when an agent's items would pass its quota.
   */
  async saveMany(
    scope: string,
    writer: string | null,
    facts: readonly SharedMemorySave[],
  ): Promise<SharedMemorySaveAnswer[]> {
    checkedScope(scope);
    const engine = this.#engine(); // opened first: the counts are filled in as it opens
    const held = writer === null ? 0 : (this.#written.get(writer) ?? 0);
    if (writer !== null && held + facts.length > this.#options.itemsPerAgent)
      throw new OpenLegionError(
        'MESH_QUOTA_EXCEEDED',
        `agent "${writer}" already has ${held} items in the shared memory scopes${facts.length > 1 ? ` and ${facts.length} more do not fit` : ''} (limits.shared_memory_items_per_agent in mesh.yaml); delete some of its own first`,
        {
          details: {
            agent: writer,
            limit: 'shared_memory_items_per_agent',
            max: this.#options.itemsPerAgent,
          },
        },
      );
    if (facts.length === 0) return [];
    const report = await engine.save(
      facts.map((fact) => ({
        ...fact,
        scope,
        source: 'tool' as const,
        ...(writer !== null ? { sourceRef: `${WRITER_PREFIX}${writer}` } : {}),
      })),
      // A squad's episodic memory is a log (seed 003): the same lesson from two sessions is two
      // entries, which is how distillation sees that sessions agree. Never merged away.
      isEpisodicLog(scope, facts[0]?.category) ? { dedup: false } : undefined,
    );
    return report.outcomes.map((outcome) => {
      // A supersede leaves the replaced item's writer counted until the next open's scan: a count
      // that overstates a little, never one an agent can push past its quota.
      if (outcome.action === 'created' || outcome.action === 'superseded') this.#count(writer, 1);
      return { scope, action: outcome.action, id: outcome.id, reason: outcome.reason };
    });
  }

  /** @throws {OpenLegionError} `MEM_ITEM_NOT_FOUND` when `id` is not a live item of `scope`. */
  get(scope: string, id: number): SharedMemoryItem {
    return toShared(this.#item(scope, id));
  }

  /** Each scope that holds live items, with its counts by category (the operator's overview). */
  scopes(): SharedMemoryScopesAnswer['scopes'] {
    const byScope = new Map<string, Record<string, number>>();
    for (const item of this.#engine().list()) {
      const categories = byScope.get(item.scope) ?? {};
      categories[item.category] = (categories[item.category] ?? 0) + 1;
      byScope.set(item.scope, categories);
    }
    return [...byScope]
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
      .map(([scope, categories]) => ({
        scope,
        items: Object.values(categories).reduce((sum, count) => sum + count, 0),
        categories,
      }));
  }

  /** Oldest first, live items only. */
  list(scope: string, limit: number, offset: number): SharedMemoryItem[] {
    return this.#engine()
      .list({ scopes: [checkedScope(scope)], limit, offset })
      .map(toShared);
  }

  /**
   * Delete item `id` of `scope`. An agent (`by` not null) may delete only what it wrote.
   * @throws {OpenLegionError} `MEM_ITEM_NOT_FOUND`, `MESH_FORBIDDEN`.
   */
  delete(scope: string, id: number, by: string | null): void {
    const item = this.#item(scope, id);
    const writer = writerOf(item);
    if (by !== null && writer !== by)
      throw new OpenLegionError(
        'MESH_FORBIDDEN',
        `agent "${by}" may not delete memory ${id} of "${scope}": ${writer ? `agent "${writer}"` : 'the operator'} wrote it, and an agent deletes only its own; the operator can (openlegion memory ${scope} delete ${id})`,
        { details: { agent: by, permission: 'memory.write', target: scope } },
      );
    this.#engine().delete(id);
    this.#count(writer, -1);
  }

  close(): void {
    this.#closed = true;
    this.#opened?.close();
    this.#opened = undefined;
    this.#written.clear();
  }

  #item(scope: string, id: number): MemoryItem {
    const item = this.#engine().get(id);
    // An item of another scope is reported missing: its existence is not the caller's to learn.
    if (!item || item.scope !== checkedScope(scope) || item.supersededBy !== null)
      throw new OpenLegionError('MEM_ITEM_NOT_FOUND', `no memory item ${id} in "${scope}"`, {
        details: { id, scope },
      });
    return item;
  }

  #count(writer: string | null, delta: number): void {
    if (writer === null) return;
    this.#written.set(writer, Math.max(0, (this.#written.get(writer) ?? 0) + delta));
  }
}

/**
 * `scope` when it is shared (`global`, `squad:NAME`).
 * @throws {OpenLegionError} `MEM_SCOPE_INVALID` naming the scopes the host keeps.
 */
export function checkedScope(scope: string): string {
  if (isSharedMemoryScope(scope)) return scope;
  throw new OpenLegionError(
    'MEM_SCOPE_INVALID',
    `"${scope.slice(0, 80)}" is not a shared memory scope: the host keeps global and squad:NAME (letters, digits, . _ -); an agent's own memory stays in its container`,
    { details: { scope: scope.slice(0, 200) } },
  );
}

function writerOf(item: MemoryItem): string | null {
  return item.sourceRef?.startsWith(WRITER_PREFIX) ? item.sourceRef.slice(WRITER_PREFIX.length) : null;
}

function toShared(item: MemoryItem): SharedMemoryItem {
  return {
    id: item.id,
    scope: item.scope,
    category: item.category,
    abstract: item.abstract,
    content: item.content,
    writer: writerOf(item),
    created_at: item.createdAt,
    updated_at: item.updatedAt,
  };
}

/** A squad's `episodic` layer: append-only, each session's lessons kept as written. */
function isEpisodicLog(scope: string, category: string | undefined): boolean {
  return scope.startsWith('squad:') && category === 'episodic';
}
