import type { SharedMemoryItem } from './shared-memory-api.js';

/** Episodic squad entries older than this are compressed (seed 003: "compressed after 7 days"). */
export const SQUAD_EPISODIC_MAX_AGE_DAYS = 7;
const DAY_MS = 86_400_000;
/** The longest line a compressed session becomes: a squad's memory stays within its budgets. */
const COMPRESSED_MAX_CHARS = 4_000;

/** One old session's entries and the line that replaces them. */
export interface SquadCompression {
  content: string;
  ids: number[];
}

/**
 * What compressing a squad's episodic memory does (the host's daily run and
 * `openlegion memory squads compress` alike): each session older than `maxAgeDays` with two
 * lessons or more becomes one line, its lessons joined, the session and its day kept. `sessions`
 * counts the old sessions, compressed or already one line.
 */
export function planSquadCompression(
  items: readonly SharedMemoryItem[],
  nowMs: number,
  maxAgeDays = SQUAD_EPISODIC_MAX_AGE_DAYS,
): { merges: SquadCompression[]; sessions: number } {
  const before = nowMs - maxAgeDays * DAY_MS;
  const bySession = new Map<string, SharedMemoryItem[]>();
  for (const item of items) {
    if (item.category !== 'episodic' || item.updated_at >= before) continue;
    const session = /\(session ([^)]+)\)$/.exec(item.content)?.[1] ?? `#${item.id}`;
    bySession.set(session, [...(bySession.get(session) ?? []), item]);
  }
  const merges: SquadCompression[] = [];
  for (const [session, entries] of bySession) {
    if (entries.length < 2) continue;
    const day = new Date(Math.max(...entries.map((item) => item.updated_at))).toISOString().slice(0, 10);
    const lessons = entries.map((item) => item.content.replace(/ \(session [^)]+\)$/, '')).join('; ');
    merges.push({
      content: `${lessons} (session ${session}, ${day})`.slice(0, COMPRESSED_MAX_CHARS),
      ids: entries.map((item) => item.id),
    });
  }
  return { merges, sessions: bySession.size };
}
