import type { MemoryItem } from '@openlegion/memory';
import { fenceUntrusted, stripInvisible } from '@openlegion/protocol';

/**
 * What recall formats: a memory of the agent's own store, or of a shared scope the host keeps
 * (there `sourceRef` is the agent that wrote it, null for the operator).
 */
export type RecallItem = Pick<
  MemoryItem,
  'id' | 'scope' | 'category' | 'content' | 'updatedAt' | 'source' | 'sourceRef'
> & {
  /**
   * True for a memory of the host's shared store (its ids are that store's). The agent's own store
   * may hold a `global` item too (an import): the scope alone does not say which store it is from.
   */
  hostShared?: boolean;
};

/** A memory as it goes into a prompt: what the block shows and what `/debug` and traces report. */
export interface RecalledMemory {
  id: number;
  category: string;
  scope: string;
  source: MemoryItem['source'];
  /** When it was saved (last written), ISO 8601. */
  savedAt: string;
  /** Characters of its text carried in the block (after clipping). */
  chars: number;
  /** True when its text was cut to fit the budget. */
  clipped: boolean;
  /** True when it is fenced as untrusted (saved from conversation, or written by another agent). */
  untrusted: boolean;
}

/** The recall block of one turn and the memories it carries. */
export interface RecallBlock {
  /** Empty when nothing fits (or nothing was found). */
  text: string;
  memories: RecalledMemory[];
}

const OPEN = '<recalled_memories>';
const CLOSE = '</recalled_memories>';
const HEADER =
  'Memories saved earlier that may bear on the message below (automatic recall; use them only if relevant):';
const UNTRUSTED_SOURCE = 'memory saved from conversations or by other agents';
/** A memory cut shorter than this says too little to be worth its provenance line. */
const MIN_ITEM_TEXT_CHARS = 40;
const ELLIPSIS = '…';

/**
 * A recalled memory's key: its id in the agent's own store (`12`), or scope and id for a shared
 * scope's (`global:12`), whose ids are another store's.
 */
export function memoryKey(item: Pick<RecallItem, 'id' | 'scope' | 'hostShared'>): string {
  return item.hostShared ? `${item.scope}:${item.id}` : String(item.id);
}

/** The marker each recalled memory carries: how a later turn sees that it is already in the prompt. */
export function memoryMarker(item: Pick<RecallItem, 'id' | 'scope' | 'hostShared'>): string {
  return `[memory ${memoryKey(item)} ·`;
}

/** The keys of memories already recalled into `text` (their markers). */
export function recalledKeys(text: string): Set<string> {
  const keys = new Set<string>();
  for (const match of text.matchAll(/\[memory ((?:[A-Za-z0-9:._-]+:)?\d+) ·/g)) keys.add(match[1] ?? '');
  return keys;
}

/**
 * A memory is trusted when the agent saved it itself with memory_save or the operator imported it,
 * into the agent's own scope, like its MEMORY.md. Facts extracted from conversations (which carry
 * tool output and web pages) and anything in a shared scope (other agents write there) are data.
 */
export function isTrustedMemory(item: Pick<RecallItem, 'source' | 'scope'>, ownScope: string): boolean {
  return (item.source === 'tool' || item.source === 'import') && item.scope === ownScope;
}

/**
 * Format recalled memories, best first, into a block of at most `budgetChars` characters (the whole
 * block: tags, header, provenance and text). A memory that does not fit whole is clipped to what
 * is left; recall stops when what is left is too small to say anything.
 */
export function formatRecallBlock(
  items: readonly RecallItem[],
  options: { budgetChars: number; ownScope: string },
): RecallBlock {
  const trusted: string[] = [];
  const untrusted: string[] = [];
  const memories: RecalledMemory[] = [];
  for (const item of items) {
    const isTrusted = isTrustedMemory(item, options.ownScope);
    const lines = isTrusted ? trusted : untrusted;
    const prefix = `- ${provenance(item)} `;
    const text = oneLine(item.content);
    // What is left once this line's prefix (and, for the first untrusted line, the fence) is in.
    lines.push(prefix);
    const room = options.budgetChars - blockText(trusted, untrusted, untrusted.length > 0).length;
    lines.pop();
    if (room < Math.min(text.length, MIN_ITEM_TEXT_CHARS)) continue;
    const clipped = text.length > room;
    const shown = clipped ? `${text.slice(0, room - ELLIPSIS.length).trimEnd()}${ELLIPSIS}` : text;
    lines.push(`${prefix}${shown}`);
    memories.push({
      id: item.id,
      category: item.category,
      scope: item.scope,
      source: item.source,
      savedAt: new Date(item.updatedAt).toISOString(),
      chars: shown.length,
      clipped,
      untrusted: !isTrusted,
    });
  }
  if (memories.length === 0) return { text: '', memories };
  return { text: blockText(trusted, untrusted, untrusted.length > 0), memories };
}

/** `[memory 12 · preferences · saved 2026-11-20 · by memory_save]`: enough to weigh and cite it. */
function provenance(item: RecallItem): string {
  const saved = new Date(item.updatedAt).toISOString().slice(0, 10);
  const from = sourceLabel(item);
  // A shared memory's key names its scope already.
  const scope = item.scope.startsWith('agent:') || item.hostShared ? '' : ` · ${item.scope}`;
  return `${memoryMarker(item)} ${item.category}${scope} · saved ${saved} · ${from}]`;
}

function sourceLabel(item: RecallItem): string {
  if (item.hostShared)
    return item.sourceRef
      ? `written by agent ${oneLine(item.sourceRef).slice(0, 60)}`
      : 'written by the operator';
  const ref = item.sourceRef ? ` ${oneLine(item.sourceRef).slice(0, 60)}` : '';
  switch (item.source) {
    case 'tool':
      return 'by memory_save';
    case 'import':
      return `imported${ref}`;
    case 'flush':
      return `extracted from conversation${ref}`;
    case 'chat':
      return `from chat${ref}`;
  }
}

/**
 * One line of plain text. A tag that could close the block or the fence early is neutralised here,
 * before measuring, so the fence has nothing left to change and the budget holds exactly.
 */
function oneLine(text: string): string {
  return stripInvisible(text)
    .replace(/\s+/g, ' ')
    .replace(/<(?=\/?(untrusted|recalled_memories)\b)/gi, '&lt;')
    .trim();
}

function blockText(trusted: readonly string[], untrusted: readonly string[], fence: boolean): string {
  const parts = [OPEN, HEADER, ...trusted];
  if (fence) parts.push(fenceUntrusted(UNTRUSTED_SOURCE, untrusted.join('\n')));
  parts.push(CLOSE);
  return parts.join('\n');
}
