import { FakeClock } from '@openlegion/infra/clock';
import { pino } from 'pino';
import { describe, expect, it } from 'vitest';
import type { LlmMessage } from '../context-manager.js';
import { groupMessages } from '../message-groups.js';
import { chatTurn, firstSentenceTier, openStores, SMALL_SETTINGS, toolRound } from './lossless-test-kit.js';
import {
  condenseFull,
  condenseOnce,
  freshTailStart,
  leafSpans,
  messageTokens,
  summariseLeaves,
} from './summary-dag.js';
import { SummaryStore } from './summary-store.js';

const logger = pino({ level: 'silent' });
const request = { conversationId: 'c1', signal: new AbortController().signal };

function conversation(turns: number): LlmMessage[] {
  const messages: LlmMessage[] = [];
  for (let index = 1; index <= turns; index++) {
    messages.push(...(chatTurn(index) as LlmMessage[]));
    if (index % 3 === 0) messages.push(...(toolRound(index) as LlmMessage[]));
  }
  return messages;
}

describe('fresh tail and leaf spans', () => {
  it('starts the fresh tail at a group boundary, never between a tool call and its result', () => {
    const body = conversation(6); // ends with a tool round (turn 6)
    const boundaries = new Set(groupMessages(body).map((group) => group.start));
    for (let tail = 1; tail <= body.length; tail++) {
      const start = freshTailStart(body, tail);
      expect(boundaries.has(start)).toBe(true);
      expect(body.length - start).toBeGreaterThanOrEqual(tail);
      expect(body[start]?.role).not.toBe('tool');
    }
  });

  it('cuts leaf spans on whole groups, each at least the chunk size but the last', () => {
    const body = conversation(40);
    const spans = leafSpans(body, 0, body.length, 300);
    expect(spans[0]?.[0]).toBe(0);
    expect(spans.at(-1)?.[1]).toBe(body.length);
    spans.forEach(([start, end], index) => {
      if (index > 0) expect(start).toBe(spans[index - 1]?.[1]);
      expect(body[start]?.role).not.toBe('tool');
      expect(body[end]?.role ?? 'user').not.toBe('tool');
      let tokens = 0;
      for (let at = start; at < end; at++) tokens += messageTokens(body[at]);
      if (index < spans.length - 1) expect(tokens).toBeGreaterThanOrEqual(300);
    });
  });
});

describe('the summary DAG', () => {
  it('condenses 8 leaves into depth 1 and 4 of those into depth 2, linking parents and children', async () => {
    const { db } = openStores();
    const store = new SummaryStore(db);
    const call = firstSentenceTier();
    const deps = { store, call, settings: SMALL_SETTINGS, clock: new FakeClock(0), logger };
    const body = conversation(400);
    const leaves = await summariseLeaves(deps, request, body, 0, body.length);
    expect(leaves.length).toBeGreaterThanOrEqual(32);
    await condenseFull(deps, request);
    const all = store.all('c1');
    const active = store.active('c1');
    const depth1 = all.filter((node) => node.depth === 1);
    const depth2 = all.filter((node) => node.depth === 2);
    expect(depth1.length).toBe(Math.floor(leaves.length / 8));
    expect(depth2.length).toBe(Math.floor(depth1.length / 4));
    for (const node of depth1) {
      expect(node.children).toHaveLength(8);
      const children = node.children.map((id) => store.get(id));
      expect(children.every((child) => child?.parentId === node.id && child.depth === 0)).toBe(true);
      expect(node.start).toBe(children[0]?.start);
      expect(node.end).toBe(children.at(-1)?.end);
    }
    // The active summaries tile the conversation without gaps or overlaps, deepest (oldest) first.
    let at = 0;
    for (const node of active) {
      expect(node.start).toBe(at);
      at = node.end;
    }
    expect(at).toBe(body.length);
    // No depth holds a full fanout of active summaries afterwards.
    expect(active.filter((node) => node.depth === 0).length).toBeLessThan(8);
    expect(active.filter((node) => node.depth === 1).length).toBeLessThan(4);
  });

  it('condenses as few as 2 (the floor) under pressure, and not 1', async () => {
    const { db } = openStores();
    const store = new SummaryStore(db);
    const deps = {
      store,
      call: firstSentenceTier(),
      settings: SMALL_SETTINGS,
      clock: new FakeClock(0),
      logger,
    };
    const body = conversation(30);
    const spans = leafSpans(body, 0, body.length, SMALL_SETTINGS.leafChunkTokens);
    const twoLeavesEnd = spans[1]?.[1] ?? 0;
    await summariseLeaves(deps, request, body, 0, twoLeavesEnd);
    expect(store.active('c1')).toHaveLength(2);
    expect(await condenseOnce(deps, request)).toBe(true);
    const active = store.active('c1');
    expect(active).toHaveLength(1);
    expect(active[0]?.depth).toBe(1);
    expect(active[0]?.children).toHaveLength(2);
    expect(await condenseOnce(deps, request)).toBe(false);
  });

  it('escalates normal → aggressive → truncation and records how each summary was made', async () => {
    const { db } = openStores();
    const store = new SummaryStore(db);
    const body = conversation(12);
    const long = 'word '.repeat(2_000);
    const modes: string[] = [];
    const script = [
      // Too long, then fits on the aggressive prompt.
      async () => long,
      async () => 'Short aggressive summary.',
      // Fails, then too long: deterministic truncation.
      async () => {
        throw new Error('fast tier down');
      },
      async () => long,
    ];
    const call = async () => {
      const next = script.shift();
      if (!next) throw new Error('unexpected call');
      return next();
    };
    const deps = {
      store,
      call,
      settings: { ...SMALL_SETTINGS, leafChunkTokens: 10_000 },
      clock: new FakeClock(0),
      logger,
    };
    const half = groupMessages(body).find((group) => group.start >= body.length / 2)?.start ?? 0;
    for (const [from, to] of [
      [0, half],
      [half, body.length],
    ] as const) {
      const [leaf] = await summariseLeaves(deps, request, body, from, to);
      modes.push(leaf?.mode ?? '');
      expect(leaf?.tokens).toBeLessThanOrEqual(SMALL_SETTINGS.leafTargetTokens);
    }
    expect(modes).toEqual(['aggressive', 'truncated']);
    const truncated = store.active('c1')[1];
    expect(truncated?.content).toContain('[truncated: the fast tier could not summarise this span');
    expect(truncated?.content).toContain(`#${body.length} `);
  });
});
