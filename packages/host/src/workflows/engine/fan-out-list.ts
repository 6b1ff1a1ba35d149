import { ExpressionError } from '../expression/index.js';

/**
 * The elements a `for_each` runs over: a list; text holding a JSON list; other text one element
 * per non-empty line (list markers like `-`, `*` or `1.` dropped); null (a skipped step) none.
 */
export function listOf(value: unknown): unknown[] {
  if (Array.isArray(value)) return value;
  if (value === null || value === undefined) return [];
  if (typeof value !== 'string')
    throw new ExpressionError(
      `for_each needs a list, not ${typeof value === 'object' ? 'an object' : typeof value}`,
    );
  const text = value.trim();
  if (text.startsWith('[')) {
    try {
      const parsed: unknown = JSON.parse(text);
      if (Array.isArray(parsed)) return parsed;
    } catch {
      // Not JSON after all: read it as lines.
    }
  }
  return text
    .split('\n')
    .map((line) => line.replace(/^\s*(?:[-*•]|\d+[.)])\s+/, '').trim())
    .filter((line) => line !== '');
}
