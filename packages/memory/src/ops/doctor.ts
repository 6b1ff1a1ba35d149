import type { MemoryContext } from '../store/memory-context.js';
import { embedProgress } from './backfill.js';

const PROBE_TIMEOUT_MS = 10_000;

/** One check: what was checked, whether it passed, and what was seen. */
export interface DoctorCheck {
  name: string;
  ok: boolean;
  detail: string;
}

export interface DoctorReport {
  ok: boolean;
  checks: DoctorCheck[];
}

/**
 * Check the database (integrity, WAL), sqlite-vec, the FTS index, the recorded embedding dimension
 * against the active embedder, the embedder's reachability, and items missing vectors.
 */
export async function memoryDoctor(context: MemoryContext): Promise<DoctorReport> {
  const checks: DoctorCheck[] = [
    check('database', () => {
      const result = context.db.pragma('quick_check', { simple: true });
      const mode = context.db.pragma('journal_mode', { simple: true });
      return [result === 'ok', `${context.db.name}: integrity ${String(result)}, journal ${String(mode)}`];
    }),
    check('sqlite-vec', () => {
      const version = context.db.prepare<[], { v: string }>('SELECT vec_version() AS v').get()?.v;
      return [version !== undefined, `vec0 ${version ?? 'missing'}`];
    }),
    check('fts', () => {
      context.db.prepare("INSERT INTO memory_fts (memory_fts) VALUES ('integrity-check')").run();
      const indexed =
        context.db.prepare<[], { n: number }>('SELECT count(*) AS n FROM memory_fts').get()?.n ?? 0;
      const live = context.items.count();
      return [indexed === live, `fts5 (porter unicode61): ${indexed} entries for ${live} live items`];
    }),
    dimensionsCheck(context),
  ];
  checks.push(await embedderCheck(context));
  if (context.embedder && context.onEmbedderError === 'bm25') {
    checks.push(backgroundCheck(context));
  } else if (context.embedder) {
    const missing = context.items.count() - context.vectors.count();
    checks.push({
      name: 'vectors',
      ok: missing === 0,
      detail:
        missing === 0 ? 'every live item has a vector' : `${missing} live items have no vector; run reembed`,
    });
  }
  checks.push({
    name: 'llm',
    ok: true,
    detail: context.llm ? `LLM ${context.llm.model}` : 'no LLM: heuristic extraction and dedup',
  });
  return { ok: checks.every((entry) => entry.ok), checks };
}

function check(name: string, run: () => [boolean, string]): DoctorCheck {
  try {
    const [ok, detail] = run();
    return { name, ok, detail };
  } catch (error) {
    return { name, ok: false, detail: error instanceof Error ? error.message : String(error) };
  }
}

/**
 * A running agent re-embeds in the background: items waiting for a vector are progress, not a fault,
 * unless the last embedding failed (provider down, wrong dimension).
 */
function backgroundCheck(context: MemoryContext): DoctorCheck {
  const progress = embedProgress(context);
  const error = context.embedStatus?.error;
  const state =
    progress.pending === 0
      ? 'every live item has a vector'
      : `${progress.done} of ${progress.total} live items embedded with ${progress.embedder}, ${progress.pending} found lexically until re-embedded${context.embedStatus?.running ? ' (re-embedding now)' : ''}`;
  return {
    name: 'vectors',
    ok: !error,
    detail: error ? `${state}; last embedding failed: ${error.code}: ${error.message}` : state,
  };
}

function dimensionsCheck(context: MemoryContext): DoctorCheck {
  const recorded = context.vectors.state();
  const { embedder } = context;
  if (!embedder) return { name: 'dimensions', ok: true, detail: 'no embedder: BM25 only' };
  if (!recorded)
    return { name: 'dimensions', ok: true, detail: `nothing embedded yet; ${embedder.id} will be recorded` };
  if (context.onEmbedderError === 'bm25' && recorded.embedderId !== embedder.id)
    return {
      name: 'dimensions',
      ok: true,
      detail: `store has ${recorded.embedderId} (${recorded.dimensions}); moving to ${embedder.id} in the background`,
    };
  const sameDims = embedder.dimensions === undefined || embedder.dimensions === recorded.dimensions;
  const ok = sameDims && embedder.id === recorded.embedderId;
  return {
    name: 'dimensions',
    ok,
    detail: ok
      ? `${recorded.embedderId}, ${recorded.dimensions} dimensions`
      : `store built with ${recorded.embedderId} (${recorded.dimensions}), embedder is ${embedder.id} (${embedder.dimensions ?? '?'}); run reembed`,
  };
}

async function embedderCheck(context: MemoryContext): Promise<DoctorCheck> {
  const { embedder } = context;
  if (!embedder) return { name: 'embedder', ok: true, detail: 'none configured: BM25 only' };
  const started = performance.now();
  try {
    const [vector] = await embedder.embed(
      ['openlegion memory doctor probe'],
      AbortSignal.timeout(PROBE_TIMEOUT_MS),
    );
    const ms = Math.round(performance.now() - started);
    const recorded = context.vectors.state();
    if (recorded?.embedderId === embedder.id && vector?.length !== recorded.dimensions)
      return {
        name: 'embedder',
        ok: false,
        detail: `${embedder.id} answered ${vector?.length} dimensions but the store's vectors have ${recorded.dimensions}`,
      };
    return {
      name: 'embedder',
      ok: true,
      detail: `${embedder.id} (${embedder.kind}) answered in ${ms} ms, ${vector?.length} dimensions`,
    };
  } catch (error) {
    return {
      name: 'embedder',
      ok: false,
      detail: `${embedder.id} unreachable: ${error instanceof Error ? error.message : String(error)}`,
    };
  }
}
