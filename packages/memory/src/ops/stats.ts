import type { MemoryContext } from '../store/memory-context.js';
import { embedProgress } from './backfill.js';

/** Counts a store reports (`openlegion memory <agent> stats`, `GET /memory/stats`). */
export interface MemoryStats {
  items: number;
  superseded: number;
  withVectors: number;
  /** How vector search runs on this connection: sqlite-vec's KNN, or the in-memory int8 scan (with its size). */
  vectorSearch: { method: 'sqlite-vec' | 'int8-scan'; copiedVectors: number };
  byScope: Record<string, number>;
  byCategory: Record<string, number>;
  byTier: Record<string, number>;
  embedder: {
    active: string | null;
    recorded: string | null;
    dimensions: number | null;
    /** Live items with a vector of the active embedder, of `total`; the rest are found lexically. */
    reembed: { done: number; total: number; pending: number; running: boolean };
    /** The last embedding failure (provider down, wrong dimension), cleared by the next success. */
    error: string | null;
  };
  llm: string | null;
}

export function memoryStats(context: MemoryContext): MemoryStats {
  const group = (column: 'scope' | 'category' | 'tier'): Record<string, number> =>
    Object.fromEntries(
      context.db
        .prepare<[], { key: string; n: number }>(
          `SELECT ${column} AS key, count(*) AS n FROM memory_items WHERE superseded_by IS NULL GROUP BY ${column} ORDER BY ${column}`,
        )
        .all()
        .map((row) => [row.key, row.n]),
    );
  const recorded = context.vectors.state();
  return {
    items: context.items.count(),
    superseded: context.items.count({ includeSuperseded: true }) - context.items.count(),
    withVectors: context.vectors.count(),
    vectorSearch: context.vectors.searchMethod(),
    byScope: group('scope'),
    byCategory: group('category'),
    byTier: group('tier'),
    embedder: {
      active: context.embedder?.id ?? null,
      recorded: recorded?.embedderId ?? null,
      dimensions: recorded?.dimensions ?? null,
      reembed: { ...pick(embedProgress(context)), running: context.embedStatus?.running ?? false },
      error: context.embedStatus?.error
        ? `${context.embedStatus.error.code}: ${context.embedStatus.error.message}`
        : null,
    },
    llm: context.llm?.model ?? null,
  };
}

function pick({ done, total, pending }: { done: number; total: number; pending: number }) {
  return { done, total, pending };
}
