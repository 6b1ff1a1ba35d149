import { BUILTIN_CATEGORIES } from '@openlegion/memory';
import { z } from 'zod';
import type { ExtractedFact } from './context-state-store.js';

/** What the fast tier is asked for: the memory engine's built-in categories. */
export const FACT_CATEGORIES: readonly string[] = BUILTIN_CATEGORIES;
/** The JSON shape both the flush and the summariser use for facts. */
export const FACT_JSON_SHAPE =
  '{"key":"short name of the fact","value":"the fact, self-contained","category":"profile|preferences|entities|events|cases|patterns"}';
/** Facts carried per conversation; older ones stay in memory and MEMORY.md, not in the prompt. */
const MAX_LEDGER_FACTS = 200;
const MAX_KEY_CHARS = 120;
const MAX_VALUE_CHARS = 1_000;

/** A fact list as a small model writes it: items that do not fit are dropped, not fatal. */
export const factListSchema = z.array(z.unknown()).max(200);

/** The well-formed facts of a raw list: keys and values trimmed, unknown categories as `entities`. */
export function normalizeFacts(raw: readonly unknown[]): ExtractedFact[] {
  const facts: ExtractedFact[] = [];
  for (const item of raw) {
    if (typeof item !== 'object' || item === null) continue;
    const { key, value, category } = item as Record<string, unknown>;
    const keyText = scalarText(key).replace(/\s+/g, ' ').trim().slice(0, MAX_KEY_CHARS);
    const valueText = scalarText(value).replace(/\s+/g, ' ').trim().slice(0, MAX_VALUE_CHARS);
    if (!keyText || !valueText) continue;
    const categoryText = scalarText(category).trim().toLowerCase();
    facts.push({
      key: keyText,
      value: valueText,
      category: FACT_CATEGORIES.includes(categoryText) ? categoryText : 'entities',
    });
  }
  return facts;
}

/**
 * Fold new facts into a conversation's ledger (a fact is identified by its key, case-insensitive;
 * a new value replaces the old). Returns the ledger and the facts that were new or changed, which
 * are the only ones written out again.
 */
export function mergeFacts(
  ledger: readonly ExtractedFact[],
  incoming: readonly ExtractedFact[],
): { ledger: ExtractedFact[]; fresh: ExtractedFact[] } {
  const byKey = new Map(ledger.map((fact) => [fact.key.toLowerCase(), fact]));
  const fresh = new Map<string, ExtractedFact>();
  for (const fact of incoming) {
    const id = fact.key.toLowerCase();
    const known = byKey.get(id);
    if (known && known.value === fact.value) continue;
    // Re-inserting moves the key to the end: the ledger stays ordered oldest → newest.
    byKey.delete(id);
    byKey.set(id, fact);
    fresh.set(id, fact);
  }
  return { ledger: [...byKey.values()].slice(-MAX_LEDGER_FACTS), fresh: [...fresh.values()] };
}

function scalarText(value: unknown): string {
  if (typeof value === 'string') return value;
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  return '';
}
