import { fenceUntrusted, type SharedMemoryItem } from '@openlegion/protocol';
import { estimateTokens } from '../text/token-estimate.js';

/**
 * Squad memory (seed 003): what a team's subagents learned, kept in the host's shared store under
 * `squad:NAME` (so every agent of the squad, and its subagents, share it), in three layers told
 * apart by category: `process` (how the team works; written by the operator or an agent),
 * `program` (lessons distilled from sessions) and `episodic` (each session's lessons, newest
 * first). Before a spawn the layers are injected within their budgets, filtered by the child's role
 * and task; after it, the child's `## Session Memory` lines are captured as episodic entries, and
 * every third session the lessons two sessions agree on are distilled into program memory.
 *
 * One implementation for both kinds of spawn: an agent's subagents (`spawn_subagent`, the agent
 * reaching the store over `/mesh/memory`) and the fleet's temporary agents (`squad` on a spawn, the
 * host reaching its own store); each brings a {@link SquadMemoryAccess}.
 */
export const SQUAD_LAYER_BUDGETS = { process: 150, program: 200, episodic: 150 } as const;
export type SquadLayer = keyof typeof SQUAD_LAYER_BUDGETS;
/** Sessions between distillations (seed 003's `autoDistillEvery`). */
export const DISTILL_EVERY_SESSIONS = 3;
/** Lessons read from one answer: a subagent cannot flood its squad's memory. */
const MAX_LESSONS_PER_SESSION = 10;
const LESSON_MAX_CHARS = 400;

/** One lesson: `[ROLE] text` (ROLE `ALL` for everyone). */
export interface Lesson {
  role: string;
  text: string;
}

/** What the child is told to end with, so its lessons can be captured. */
export const SESSION_MEMORY_INSTRUCTION =
  'When you finish, end your answer with a "## Session Memory" section: one line per lesson worth keeping for the next session, as "- [ROLE] lesson" (ROLE in capitals, or ALL for everyone).';

/**
 * The `## Session Memory` lessons of an answer: `- [ROLE] text` lines after the heading, up to the
 * next heading; at most 10, each cut to 400 characters.
 */
export function parseSessionMemory(answer: string): Lesson[] {
  const lines = answer.split('\n');
  const start = lines.findIndex((line) => /^#{1,6}\s*Session Memory\s*$/i.test(line.trim()));
  if (start === -1) return [];
  const lessons: Lesson[] = [];
  for (const line of lines.slice(start + 1)) {
    if (/^#{1,6}\s/.test(line.trim())) break;
    const match = /^\s*[-*]\s*\[([A-Za-z][A-Za-z0-9_-]{0,31})\]\s+(.+)$/.exec(line);
    if (!match?.[1] || !match[2]) continue;
    lessons.push({ role: match[1].toUpperCase(), text: match[2].trim().slice(0, LESSON_MAX_CHARS) });
    if (lessons.length === MAX_LESSONS_PER_SESSION) break;
  }
  return lessons;
}

/**
 * The estimate runs up to ~7% under a real tokenizer on some text (token-estimate.ts): lines are
 * priced this much high, so a block counted for real still fits its budget.
 */
const ESTIMATE_MARGIN = 1.1;
/**
 * Of each layer, the newest this many entries are ranked for a child. A layer holds a few dozen
 * lines at most, so older ones could only win on shared task words; bounded, a spawn costs the same
 * whatever the history (20,000 entries took 138 ms unbounded, bench/results/subagents-squad.json).
 */
const RANK_NEWEST = 1_000;
/** No line costs less (`- x` and its newline): below it a layer is full. */
const MIN_LINE_COST = 3;

/**
 * The squad memory block for a child of `role` on `task`: each layer within its budget, and the
 * whole block, fence included, within their sum (500 tokens) as a real tokenizer counts it.
 */
export function formatSquadMemory(
  squad: string,
  items: readonly SharedMemoryItem[],
  child: { role: string; task: string },
): { text: string; tokens: number; leftOut: number } {
  const roleTag = child.role.trim().split(/\s+/).at(-1)?.toUpperCase() ?? '';
  const taskWords = words(child.task);
  const source = `squad memory ${squad}`;
  // The fence is paid for by every layer in proportion to its budget.
  const total = Object.values(SQUAD_LAYER_BUDGETS).reduce((sum, budget) => sum + budget, 0);
  const scale = (total - priced(fenceUntrusted(source, ''))) / total;
  const parts: string[] = [];
  let leftOut = 0;
  for (const layer of Object.keys(SQUAD_LAYER_BUDGETS) as SquadLayer[]) {
    const layerItems = items.filter((item) => item.category === layer);
    let candidates = layerItems.sort((a, b) => b.updated_at - a.updated_at).slice(0, RANK_NEWEST);
    leftOut += layerItems.length - candidates.length;
    if (layer !== 'process') {
      // Lessons for this role or everyone, those sharing the task's words first.
      candidates = candidates
        .filter((item) => forRole(item.content, roleTag))
        .map((item, index) => ({ item, index, overlap: overlap(words(item.content), taskWords) }))
        .sort((a, b) => b.overlap - a.overlap || a.index - b.index)
        .map(({ item }) => item);
    }
    const budget = SQUAD_LAYER_BUDGETS[layer] * scale;
    const chosen: string[] = [];
    // The layer's heading and each line's newline count against its budget too.
    let used = priced(`${layer}:\n`);
    for (const [index, item] of candidates.entries()) {
      if (budget - used < MIN_LINE_COST) {
        leftOut += candidates.length - index;
        break;
      }
      const line = `- ${oneLine(item.content)}`;
      const cost = priced(`${line}\n`);
      if (used + cost > budget) {
        leftOut += 1;
        continue;
      }
      chosen.push(line);
      used += cost;
    }
    if (chosen.length > 0) parts.push(`${layer}:\n${chosen.join('\n')}`);
  }
  if (parts.length === 0) return { text: '', tokens: 0, leftOut };
  const text = fenceUntrusted(source, parts.join('\n'));
  return { text, tokens: estimateTokens(text), leftOut };
}

function priced(text: string): number {
  return estimateTokens(text) * ESTIMATE_MARGIN;
}

/**
 * A squad's memory where it is kept (the host's shared store): read all of it, or write entries of
 * one layer. The agent reaches it over the mesh; the host calls its store directly.
 */
export interface SquadMemoryAccess {
  read(squad: string, traceId?: string): Promise<SharedMemoryItem[]>;
  /** Every entry or none, where the store can promise that (the host's one transaction). */
  write(squad: string, layer: SquadLayer, contents: readonly string[], traceId?: string): Promise<void>;
}

/**
 * After a session: its lessons become episodic entries (tagged with the session), and every third
 * session the lessons at least two sessions agree on (or any `[ALL]` one) are written to program
 * memory (the store merges what it already has). Returns what was written.
 */
export async function captureSession(
  access: SquadMemoryAccess,
  squad: string,
  session: { id: string; answer: string; traceId?: string | undefined },
): Promise<{ captured: number; distilled: number }> {
  const lessons = parseSessionMemory(session.answer);
  if (lessons.length === 0) return { captured: 0, distilled: 0 };
  await access.write(
    squad,
    'episodic',
    lessons.map((lesson) => `[${lesson.role}] ${lesson.text} (session ${session.id})`),
    session.traceId,
  );
  const items = await access.read(squad, session.traceId);
  if (episodeSessions(items) % DISTILL_EVERY_SESSIONS !== 0)
    return { captured: lessons.length, distilled: 0 };
  const agreed = distillLessons(items);
  if (agreed.length > 0) await access.write(squad, 'program', agreed, session.traceId);
  return { captured: lessons.length, distilled: agreed.length };
}

/** Episodic entries as written by {@link captureSession}: `[ROLE] text (session ID)`. */
const EPISODE = /^\[([A-Z0-9_-]+)\] (.+) \(session ([^)]+)\)$/;

/** Each episodic lesson and the sessions that reported it. */
function lessonSessions(items: readonly SharedMemoryItem[]): Map<string, Set<string>> {
  const sessions = new Map<string, Set<string>>();
  for (const item of items) {
    if (item.category !== 'episodic') continue;
    const match = EPISODE.exec(item.content);
    if (!match?.[1] || !match[2] || !match[3]) continue;
    const key = `[${match[1]}] ${match[2]}`;
    sessions.set(key, (sessions.get(key) ?? new Set()).add(match[3]));
  }
  return sessions;
}

/** How many sessions the episodic log holds. */
export function episodeSessions(items: readonly SharedMemoryItem[]): number {
  return new Set([...lessonSessions(items).values()].flatMap((ids) => [...ids])).size;
}

/** The lessons at least two sessions agree on, and every `[ALL]` one: what program memory keeps. */
export function distillLessons(items: readonly SharedMemoryItem[]): string[] {
  return [...lessonSessions(items)]
    .filter(([lesson, ids]) => ids.size >= 2 || lesson.startsWith('[ALL] '))
    .map(([lesson]) => lesson);
}

function forRole(content: string, roleTag: string): boolean {
  const tag = /^\[([A-Z0-9_-]+)\]/.exec(content)?.[1];
  return tag === undefined || tag === 'ALL' || tag === roleTag;
}

function words(text: string): Set<string> {
  return new Set(text.toLowerCase().match(/[a-z0-9]{3,}/g) ?? []);
}

function overlap(a: Set<string>, b: Set<string>): number {
  let count = 0;
  for (const word of a) if (b.has(word)) count += 1;
  return count;
}

function oneLine(text: string): string {
  return text.replace(/\s+/g, ' ').trim();
}
