import { transaction } from '@openlegion/infra/sqlite';
import { OpenLegionError } from '@openlegion/protocol';
import { z } from 'zod';
import { MEMORY_SOURCES, type MemoryItem, TEMPORAL_TYPES, TIERS } from '../model/memory-item.js';
import { isScope } from '../model/scope.js';
import { embedChecked, type MemoryContext } from '../store/memory-context.js';
import { insertItem } from '../write/item-writer.js';
import { embeddingText, MAX_CONTENT_CHARS } from '../write/normalize-fact.js';

const unit = z.number().min(0).max(1);
const epochMs = z.number().int().nonnegative();

/** One exported item per line: every field of {@link MemoryItem} (vectors are rebuilt on import). */
export const memoryLineSchema = z.strictObject({
  id: z.number().int().positive(),
  scope: z.string().refine(isScope, 'not a valid scope'),
  category: z.string().regex(/^[a-z][a-z0-9_]{0,47}$/, 'not a valid category name'),
  abstract: z.string().min(1),
  overview: z.string(),
  content: z.string().min(1).max(MAX_CONTENT_CHARS),
  tier: z.enum(TIERS),
  temporalType: z.enum(TEMPORAL_TYPES),
  importance: unit,
  confidence: unit,
  accessCount: z.number().int().nonnegative(),
  lastAccessedAt: epochMs.nullable(),
  createdAt: epochMs,
  updatedAt: epochMs,
  source: z.enum(MEMORY_SOURCES),
  sourceRef: z.string().nullable(),
  version: z.number().int().positive(),
  supersededBy: z.number().int().positive().nullable(),
});

/** Every item, history included, as JSON lines in id order. */
export function* exportJsonl(context: MemoryContext): Generator<string> {
  for (const item of context.items.list({ includeSuperseded: true })) yield `${JSON.stringify(item)}\n`;
}

export interface ImportOptions {
  /** `keep` the file's ids (refused if one is taken: a lossless restore), or give `new` ids (default). */
  ids?: 'keep' | 'new';
}

/**
 * Import JSON lines: every line is checked first and all problems are reported by line number; only
 * a file with none is written, in one transaction (nothing is half-imported).
 *
 * @throws {OpenLegionError} `MEM_IMPORT_INVALID` with `details.lines = [{ line, problem }]`.
 */
export async function importJsonl(
  context: MemoryContext,
  text: string,
  options: ImportOptions = {},
): Promise<{ imported: number }> {
  const items = parseLines(text);
  const idOf = assignIds(context, items, options.ids ?? 'new');
  const live = items.filter((item) => item.supersededBy === null);
  const vectors = await embedChecked(context, live.map(embeddingText));
  const vectorOf = new Map(live.map((item, index) => [item.id, vectors?.[index]]));
  const now = context.clock.now();
  transaction(context.db, () =>
    context.categories.batch(() => {
      for (const item of items) {
        const supersededBy =
          item.supersededBy === null ? null : (idOf.get(item.supersededBy) ?? item.supersededBy);
        insertItem(context, { ...item, supersededBy }, vectorOf.get(item.id), now, idOf.get(item.id));
      }
    }),
  );
  return { imported: items.length };
}

function parseLines(text: string): MemoryItem[] {
  const problems: { line: number; problem: string }[] = [];
  const items: MemoryItem[] = [];
  const lineOfId = new Map<number, number>();
  text.split('\n').forEach((raw, index) => {
    if (raw.trim() === '') return;
    const line = index + 1;
    let value: unknown;
    try {
      value = JSON.parse(raw);
    } catch {
      problems.push({ line, problem: 'not valid JSON' });
      return;
    }
    const parsed = memoryLineSchema.safeParse(value);
    if (!parsed.success) {
      problems.push({
        line,
        problem: parsed.error.issues.map((i) => `${i.path.join('.') || 'line'}: ${i.message}`).join('; '),
      });
      return;
    }
    const earlier = lineOfId.get(parsed.data.id);
    if (earlier !== undefined)
      problems.push({ line, problem: `id ${parsed.data.id} is also on line ${earlier}` });
    lineOfId.set(parsed.data.id, line);
    items.push(parsed.data);
  });
  if (problems.length > 0) throw importInvalid(problems);
  return items;
}
/** The id each imported item gets; superseded_by links inside the file follow their targets. */
function assignIds(
  context: MemoryContext,
  items: readonly MemoryItem[],
  mode: 'keep' | 'new',
): Map<number, number> {
  const idOf = new Map<number, number>();
  if (mode === 'keep') {
    const taken = context.items.getMany(items.map((item) => item.id)).map((item) => item.id);
    if (taken.length > 0) {
      throw importInvalid(
        taken.slice(0, 20).map((id) => ({ line: 0, problem: `id ${id} already exists in the store` })),
      );
    }
    for (const item of items) idOf.set(item.id, item.id);
    return idOf;
  }
  const maxId =
    context.db.prepare<[], { m: number | null }>('SELECT max(id) AS m FROM memory_items').get()?.m ?? 0;
  items.forEach((item, index) => {
    idOf.set(item.id, maxId + index + 1);
  });
  return idOf;
}

function importInvalid(problems: { line: number; problem: string }[]): OpenLegionError {
  const summary = problems
    .slice(0, 5)
    .map((p) => (p.line > 0 ? `line ${p.line}: ${p.problem}` : p.problem))
    .join('; ');
  return new OpenLegionError('MEM_IMPORT_INVALID', `import refused, nothing imported: ${summary}`, {
    details: { lines: problems },
  });
}
