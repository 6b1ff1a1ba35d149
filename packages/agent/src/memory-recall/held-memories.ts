import { memoryKey, type RecallItem, recalledKeys } from './recall-block.js';

/** Shorter texts match too easily by accident to count as "already in the prompt". */
const MIN_MATCH_CHARS = 12;

/**
 * What the prompt already holds, to keep recall from repeating it: memories recalled earlier and
 * still in view (by their markers), and any text (MEMORY.md in the system prompt, the compaction's
 * saved facts, a memory_search result, the user's own words) that contains a memory's content.
 */
export class HeldText {
  readonly #keys: Set<string>;
  readonly #normalized: string;

  constructor(texts: readonly string[]) {
    const joined = texts.join('\n');
    this.#keys = recalledKeys(joined);
    this.#normalized = normalize(joined);
  }

  holds(item: Pick<RecallItem, 'id' | 'scope' | 'content' | 'hostShared'>): boolean {
    if (this.#keys.has(memoryKey(item))) return true;
    const content = normalize(item.content);
    return content.length >= MIN_MATCH_CHARS && this.#normalized.includes(content);
  }
}

function normalize(text: string): string {
  return text.toLowerCase().replace(/\s+/g, ' ').trim();
}
