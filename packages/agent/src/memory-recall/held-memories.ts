import type { MemoryItem } from '@openlegion/memory';
import { recalledIds } from './recall-block.js';

/** Shorter texts match too easily by accident to count as "already in the prompt". */
const MIN_MATCH_CHARS = 12;

/**
 * What the prompt already holds, to keep recall from repeating it: memories recalled earlier and
 * still in view (by their markers), and any text (MEMORY.md in the system prompt, the compaction's
 * saved facts, a memory_search result, the user's own words) that contains a memory's content.
 */
export class HeldText {
  readonly #ids: Set<number>;
  readonly #normalized: string;

  constructor(texts: readonly string[]) {
    const joined = texts.join('\n');
    this.#ids = recalledIds(joined);
    this.#normalized = normalize(joined);
  }

  holds(item: Pick<MemoryItem, 'id' | 'content'>): boolean {
    if (this.#ids.has(item.id)) return true;
    const content = normalize(item.content);
    return content.length >= MIN_MATCH_CHARS && this.#normalized.includes(content);
  }
}

function normalize(text: string): string {
  return text.toLowerCase().replace(/\s+/g, ' ').trim();
}
