import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createLocalEmbedder, createMemoryTools, defaultScopes, MemoryEngine } from '@openlegion/memory';
import type { AgentTool, ChatEvent } from '@openlegion/protocol';
import OpenAI from 'openai';
import { pino } from 'pino';
import { afterEach, describe, expect, it } from 'vitest';
import {
  type LoopHarness,
  type SentRequest,
  startLoopHarness,
  TEST_MODEL,
  textOf,
} from '../../test/loop-harness.js';
import type { ContextManager } from '../context/context-manager.js';
import { type ClosableContextManager, createContextManager } from '../context/create-context-manager.js';
import { createMemoryRecall, withRecallViews } from './index.js';

const SUMMARY = JSON.stringify({
  user_profile: 'A pet owner.',
  conversation: 'Talking about the user’s pets.',
  facts: [],
});
const FACT = 'The user’s cat is called Miso and eats only salmon.';

const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

interface RecallHarness {
  harness: LoopHarness;
  memory: MemoryEngine;
  /** The last user message of each request the model received (where recall goes). */
  lastUserMessages(): string[];
  /** Each request's messages as one text. */
  promptTexts(): string[];
  /** How often recall asked for the engine (once per search). */
  recallOpens(): number;
}

/** A loop with the real context manager (compaction on the fake LLM's fast tier) and a real engine. */
async function recallHarness(
  options: { recallChars?: number; memoryFails?: boolean; rules?: object[] } = {},
): Promise<RecallHarness> {
  const dir = mkdtempSync(join(tmpdir(), 'recall-loop-'));
  const memory = MemoryEngine.open({
    file: join(dir, 'memory.db'),
    embedder: createLocalEmbedder(),
    defaultScopes: defaultScopes('a'),
  });
  const engine = () => {
    if (options.memoryFails) throw new Error('memory.db is locked');
    return memory;
  };
  let recallOpens = 0;
  const recall = createMemoryRecall({
    memory: () => {
      recallOpens += 1;
      return engine();
    },
    recallChars: options.recallChars ?? 2_000,
    ownScope: 'agent:a',
    logger: pino({ level: 'silent' }),
  });
  let inner: ClosableContextManager | undefined;
  // The real context manager needs the fake LLM's address, known once the harness has started it.
  const started = () => {
    if (!inner) throw new Error('context manager not started');
    return inner;
  };
  const lazy: ContextManager = {
    prepare: (request) => started().prepare(request),
    compact: (request, reason) => started().compact(request, reason),
  };
  const { memorySave, memorySearch } = createMemoryTools({ memory: engine });
  const harness = await startLoopHarness({
    tools: [memorySave, memorySearch] as AgentTool[],
    script: {
      models: ['fast', TEST_MODEL],
      rules: [
        ...(options.rules ?? []),
        { match: { model: 'fast', last_message_regex: '^Current memory:' }, reply: { text: SUMMARY } },
        { match: { model: 'fast', last_message_regex: '^Transcript:' }, reply: { text: '{"facts":[]}' } },
      ],
      default: { text: 'ok' },
    },
    contextManager: withRecallViews(lazy, recall.views),
    recall,
  });
  const client = new OpenAI({ baseURL: harness.llm.url, apiKey: 'agent-token', maxRetries: 0 });
  inner = createContextManager({
    llm: async () => client,
    memory: engine,
    workspaceDir: harness.workspace,
    database: join(dir, 'agent.db'),
    settings: {
      window_tokens: 100_000,
      flush_at: 0.6,
      compact_at: 0.7,
      wrap_up_at: 0.8,
      strategy: 'adaptive',
      keep_turns: 1,
    },
    logger: pino({ level: 'silent' }),
  });
  cleanups.push(async () => {
    inner?.close();
    await harness.close();
    memory.close();
    rmSync(dir, { recursive: true, force: true });
  });
  const mainRequests = () => harness.sent().filter((request: SentRequest) => request.model === TEST_MODEL);
  return {
    harness,
    memory,
    lastUserMessages: () =>
      mainRequests().map((request) =>
        textOf([...request.messages].reverse().find((message) => message.role === 'user')),
      ),
    promptTexts: () => mainRequests().map((request) => request.messages.map(textOf).join('\n')),
    recallOpens: () => recallOpens,
  };
}

const recallEvents = (events: ChatEvent[]) => events.filter((event) => event.type === 'recall');
const count = (text: string, part: string) => text.split(part).length - 1;
const saveRule = {
  match: { model: TEST_MODEL, last_message_regex: 'Remember' },
  times: 1,
  reply: { tool_calls: [{ name: 'memory_save', arguments: { content: FACT, category: 'entities' } }] },
};

describe('automatic recall in the agent loop', () => {
  it('puts a fact saved with memory_save in one turn into the next prompt, with its provenance, without a tool call', async () => {
    const { harness, memory, lastUserMessages } = await recallHarness({ rules: [saveRule] });
    await harness.chat('Remember this about my cat, please.');
    const [saved] = memory.list();
    expect(saved?.content).toBe(FACT);
    const events = await harness.chat('What does my cat eat?');
    const prompt = lastUserMessages().at(-1) ?? '';
    expect(prompt).toContain(`[memory ${saved?.id} · entities · saved `);
    expect(prompt).toContain(`by memory_save] ${FACT}`);
    expect(prompt.endsWith('\n\nWhat does my cat eat?')).toBe(true);
    expect(recallEvents(events)).toMatchObject([
      {
        memories: [{ id: saved?.id, category: 'entities', source: 'tool', untrusted: false }],
        budget_chars: 2_000,
      },
    ]);
    expect(events.some((event) => event.type === 'tool_start')).toBe(false);
  });

  it('does not inject a memory the prompt still holds, and injects it again once compaction took it out', async () => {
    const { harness, memory, promptTexts, lastUserMessages } = await recallHarness();
    await memory.save([{ content: FACT, category: 'entities', source: 'tool' }]);
    await harness.chat('What does my cat eat?');
    const second = await harness.chat('And does my cat eat salmon every day?');
    expect(recallEvents(second)).toMatchObject([{ memories: [], held: 1 }]);
    expect(count(promptTexts().at(-1) ?? '', FACT)).toBe(1);
    // /compact summarises all but the last turn (keep_turns 1): the first turn's recall leaves the prompt.
    const third = await harness.chat('/compact what is my cat called?');
    expect(recallEvents(third)).toMatchObject([{ memories: [{ untrusted: false }] }]);
    const compacted = promptTexts().at(-1) ?? '';
    expect(compacted).toContain('Talking about the user’s pets.');
    expect(compacted).not.toContain('What does my cat eat?');
    expect(lastUserMessages().at(-1)).toContain(FACT);
    expect(count(compacted, FACT)).toBe(1);
  });

  it('makes no search and sends no recall event when recall_chars is 0', async () => {
    const { harness, memory, lastUserMessages, recallOpens } = await recallHarness({ recallChars: 0 });
    await memory.save([{ content: FACT, category: 'entities', source: 'tool' }]);
    const events = await harness.chat('What does my cat eat?');
    expect(recallEvents(events)).toEqual([]);
    expect(lastUserMessages()).toEqual(['What does my cat eat?']);
    expect(recallOpens()).toBe(0);
  });

  it('answers without recall when the memory store fails, and says so in the recall event', async () => {
    const { harness, lastUserMessages } = await recallHarness({ memoryFails: true });
    const events = await harness.chat('What does my cat eat?');
    expect(recallEvents(events)).toMatchObject([{ memories: [], error: 'memory.db is locked' }]);
    expect(lastUserMessages()).toEqual(['What does my cat eat?']);
    expect(events.at(-1)).toMatchObject({ type: 'done', text: 'ok' });
  });
});
