import type { SharedMemoryItem } from '@openlegion/protocol';
import { describe, expect, it } from 'vitest';
import { estimateTokens } from '../text/token-estimate.js';
import {
  captureSession,
  formatSquadMemory,
  parseSessionMemory,
  SQUAD_LAYER_BUDGETS,
  type SquadLayer,
  type SquadMemoryAccess,
} from './squad-memory.js';

let nextId = 1;
const item = (category: string, content: string, updated = nextId): SharedMemoryItem => ({
  id: nextId++,
  scope: 'squad:research',
  category,
  abstract: content.slice(0, 200),
  content,
  writer: 'lead',
  created_at: updated,
  updated_at: updated,
});

/** The host's squad store, in memory: what the client writes is what it reads back. */
function memoryStore(): { client: SquadMemoryAccess; items: SharedMemoryItem[] } {
  const items: SharedMemoryItem[] = [];
  return {
    items,
    client: {
      read: async () => [...items],
      write: async (_squad: string, layer: SquadLayer, contents: readonly string[]) => {
        for (const content of contents)
          if (!items.some((existing) => existing.category === layer && existing.content === content))
            items.push(item(layer, content));
      },
    },
  };
}

describe('parseSessionMemory', () => {
  it('reads the tagged lessons under the heading, up to the next heading', () => {
    const answer = [
      'The tide is at 06:12.',
      '## Session Memory',
      '- [RESEARCHER] Tide tables on the harbour site are a day ahead.',
      '- [all] Cite the source URL with every number.',
      'not a lesson',
      '- untagged line',
      '## Next',
      '- [RESEARCHER] after the section',
    ].join('\n');
    expect(parseSessionMemory(answer)).toEqual([
      { role: 'RESEARCHER', text: 'Tide tables on the harbour site are a day ahead.' },
      { role: 'ALL', text: 'Cite the source URL with every number.' },
    ]);
    expect(parseSessionMemory('no section here')).toEqual([]);
  });

  it('keeps at most ten lessons of an answer', () => {
    const lines = Array.from({ length: 50 }, (_, i) => `- [ALL] lesson ${i}`);
    expect(parseSessionMemory(`## Session Memory\n${lines.join('\n')}`)).toHaveLength(10);
  });
});

describe('formatSquadMemory', () => {
  it('keeps each layer within its budget and the whole within 500 tokens, however long the history', () => {
    const items = [
      ...Array.from({ length: 200 }, (_, i) =>
        item('process', `We review every change in pairs, rule ${i}.`),
      ),
      ...Array.from({ length: 200 }, (_, i) =>
        item('program', `[ALL] Program lesson number ${i} about tides.`),
      ),
      ...Array.from({ length: 200 }, (_, i) => item('episodic', `[RESEARCHER] Episode ${i} (session s${i})`)),
    ];
    const block = formatSquadMemory('research', items, { role: 'a researcher', task: 'find the tides' });
    const budget = SQUAD_LAYER_BUDGETS.process + SQUAD_LAYER_BUDGETS.program + SQUAD_LAYER_BUDGETS.episodic;
    // The whole block, fence included, with room for a real tokenizer counting 7% more.
    expect(block.tokens).toBe(estimateTokens(block.text));
    expect(block.tokens * 1.07).toBeLessThanOrEqual(budget);
    expect(block.tokens).toBeGreaterThan(budget * 0.75);
    expect(block.leftOut).toBeGreaterThan(500);
    expect(block.text).toContain('<untrusted source="squad memory research">');
  });

  it('ranks only the newest 1,000 entries of a layer, counting the older ones as left out', () => {
    const old = item(
      'program',
      '[ALL] The tides lesson that shares every word of the task: find the tides.',
      0,
    );
    const recent = Array.from({ length: 1_000 }, (_, i) =>
      item('program', `[ALL] Unrelated lesson ${i}.`, 10 + i),
    );
    const block = formatSquadMemory('research', [old, ...recent], {
      role: 'researcher',
      task: 'find the tides',
    });
    expect(block.text).not.toContain('The tides lesson');
    expect(block.text).toContain('Unrelated lesson 999.');
    const lines = block.text.split('\n').filter((line) => line.startsWith('- ')).length;
    expect(block.leftOut).toBe(1_001 - lines);
  });

  it("leaves out another role's lessons and puts the task's first", () => {
    const items = [
      item('program', '[WRITER] Keep drafts under 200 words.'),
      item('program', '[RESEARCHER] Moon phases: use the almanac, not the news.'),
      item('program', '[RESEARCHER] Tide tables are a day ahead.'),
    ];
    const block = formatSquadMemory('research', items, { role: 'researcher', task: 'tide tables for Porto' });
    expect(block.text).not.toContain('Keep drafts');
    expect(block.text.indexOf('Tide tables')).toBeLessThan(block.text.indexOf('Moon phases'));
  });
});

describe('captureSession', () => {
  it("keeps each session's lessons and distills what two of three sessions agree on", async () => {
    const { client, items } = memoryStore();
    const answer = (extra: string) =>
      `Done.\n## Session Memory\n- [RESEARCHER] Tide tables are a day ahead.\n- [RESEARCHER] ${extra}`;
    expect(await captureSession(client, 'research', { id: 's1', answer: answer('One-off A.') })).toEqual({
      captured: 2,
      distilled: 0,
    });
    await captureSession(client, 'research', { id: 's2', answer: answer('One-off B.') });
    const third = await captureSession(client, 'research', { id: 's3', answer: answer('One-off C.') });
    expect(third).toEqual({ captured: 2, distilled: 1 });
    expect(items.filter((entry) => entry.category === 'program').map((entry) => entry.content)).toEqual([
      '[RESEARCHER] Tide tables are a day ahead.',
    ]);
    expect(items.filter((entry) => entry.category === 'episodic')).toHaveLength(6);
  });

  it('writes nothing for an answer without lessons', async () => {
    const { client, items } = memoryStore();
    expect(await captureSession(client, 'research', { id: 's1', answer: 'Just the answer.' })).toEqual({
      captured: 0,
      distilled: 0,
    });
    expect(items).toEqual([]);
  });
});
