import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { FakeClock } from '@openlegion/infra/clock';
import { MemoryEngine } from '@openlegion/memory';
import type { ChatEvent } from '@openlegion/protocol';
import { type FakeLlm, type FakeLlmScriptInput, startFakeLlm } from '@openlegion/testkit';
import OpenAI from 'openai';
import { pino } from 'pino';
import { afterEach, describe, expect, it } from 'vitest';
import type { ContextRequest, LlmMessage, PreparedContext } from './context-manager.js';
import type { ContextSettings } from './context-services.js';
import { type ClosableContextManager, createContextManager } from './create-context-manager.js';
import { TokenCounter } from './token-counter.js';

const MODEL = 'openai/gpt-4o';
const SYSTEM: LlmMessage = { role: 'system', content: 'You are Quill, an agent of the test mesh. Be brief.' };
const EARLY_FACT = 'My name is Ada Quint and my locker code is 4417.';
const START = Date.parse('2026-03-14T09:30:00Z');
const counter = new TokenCounter();
/** Small, so a few dozen scripted turns go through several compaction cycles. */
const WINDOW = 3_000;
const LONG_CHAT = 60;

const FLUSH_WITH_FACT = JSON.stringify({
  facts: [
    { key: 'locker code', value: "Ada's locker code is 4417", category: 'entities' },
    { key: 'user name', value: 'The user is Ada Quint', category: 'profile' },
  ],
});
const SUMMARY = JSON.stringify({
  user_profile: 'A release engineer who likes short answers.',
  conversation: 'Reviewing the sections of the spring release plan one by one.',
  facts: [{ key: 'release owner', value: 'Bo Lind owns the spring release', category: 'entities' }],
});

type FlushScript = 'answers' | 'fails-once' | 'fails';

/** Flush and summariser answers, told apart by how each call's user message starts. */
function script(
  summariser: 'answers' | 'fails' = 'answers',
  flush: FlushScript = 'answers',
): FakeLlmScriptInput {
  const flushFailure = {
    match: { model: 'fast', last_message_regex: '^Transcript:' },
    ...(flush === 'fails-once' ? { times: 1 } : {}),
    fail: { status: 500 },
  };
  return {
    models: ['fast', MODEL],
    rules: [
      ...(flush === 'answers' ? [] : [flushFailure]),
      {
        match: { model: 'fast', last_message_regex: '^Transcript:[\\s\\S]*4417' },
        reply: { text: FLUSH_WITH_FACT },
      },
      { match: { model: 'fast', last_message_regex: '^Transcript:' }, reply: { text: '{"facts":[]}' } },
      summariser === 'answers'
        ? { match: { model: 'fast', last_message_regex: '^Current memory:' }, reply: { text: SUMMARY } }
        : { match: { model: 'fast', last_message_regex: '^Current memory:' }, fail: { status: 500 } },
    ],
  };
}

interface Harness {
  llm: FakeLlm;
  manager: ClosableContextManager;
  memory: MemoryEngine;
  clock: FakeClock;
  dir: string;
  notices: string[];
  request(messages: LlmMessage[], signal?: AbortSignal): ContextRequest;
  /** Fast-tier calls since the last look, as `flush` / `summary`. */
  takeCalls(): string[];
}

const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function harness(
  options: {
    settings?: Partial<ContextSettings>;
    summariser?: 'answers' | 'fails';
    flush?: FlushScript;
    dir?: string;
    counter?: TokenCounter;
    memoryFails?: boolean;
  } = {},
): Promise<Harness> {
  const llm = await startFakeLlm({ script: script(options.summariser, options.flush) });
  const dir = options.dir ?? mkdtempSync(join(tmpdir(), 'context-int-'));
  const clock = new FakeClock(START);
  const memory = MemoryEngine.open({ file: join(dir, 'memory.db'), clock });
  const client = new OpenAI({ baseURL: llm.url, apiKey: 'agent-token', maxRetries: 0 });
  const manager = createContextManager({
    llm: async () => client,
    memory: () => {
      if (options.memoryFails) throw new Error('memory.db is locked');
      return memory;
    },
    workspaceDir: join(dir, 'workspace'),
    database: join(dir, 'agent.db'),
    settings: {
      window_tokens: WINDOW,
      flush_at: 0.6,
      compact_at: 0.7,
      wrap_up_at: 0.8,
      strategy: 'adaptive',
      keep_turns: 2,
      ...options.settings,
    },
    logger: pino({ level: 'silent' }),
    clock,
    tokenCounter: options.counter ?? counter,
  });
  cleanups.push(async () => {
    manager.close();
    memory.close();
    await llm.close();
    if (!options.dir) rmSync(dir, { recursive: true, force: true });
  });
  const notices: string[] = [];
  let seen = 0;
  return {
    llm,
    manager,
    memory,
    clock,
    dir,
    notices,
    request: (messages, signal = new AbortController().signal) => ({
      conversationId: 'conversation-1',
      model: MODEL,
      messages,
      emit: (event: ChatEvent) => {
        if (event.type === 'notice') notices.push(event.message);
      },
      signal,
    }),
    takeCalls() {
      const calls = llm.requests
        .slice(seen)
        .map(fastCallKind)
        .filter((kind) => kind !== 'fallback');
      seen = llm.requests.length;
      return calls;
    },
  };
}

/** The user message of a fast-tier call (its transcript). */
function fastCallText(request: { body: unknown } | undefined): string {
  const body = request?.body as { messages?: Array<{ content: string }> } | undefined;
  return body?.messages?.[1]?.content ?? '';
}

function fastCallKind(request: { body: unknown }): string {
  // A failed fast call is tried once on the default tier (not in this fake's models: it fails too).
  if ((request.body as { model?: string }).model !== 'fast') return 'fallback';
  const user = fastCallText(request);
  return user.startsWith('Transcript:') ? 'flush' : user.startsWith('Current memory:') ? 'summary' : 'other';
}

/** Deterministic filler so turns have realistic, varied length. */
function filler(seed: number, words: number): string {
  const vocabulary = [
    'release',
    'branch',
    'review',
    'section',
    'deadline',
    'owner',
    'risk',
    'budget',
    'test',
  ];
  let state = seed * 7919 + 17;
  const out: string[] = [];
  for (let index = 0; index < words; index++) {
    state = (state * 1103515245 + 12345) % 2147483648;
    out.push(vocabulary[state % vocabulary.length] ?? 'plan');
  }
  return out.join(' ');
}

/** Turn `n` of the scripted chat: a user message, a tool round on odd turns, an answer. */
function turnMessages(n: number): { user: LlmMessage; tools: LlmMessage[]; answer: LlmMessage } {
  const user: LlmMessage = {
    role: 'user',
    content:
      n === 1 ? `${EARLY_FACT} Let us plan the release.` : `Turn ${n}: review section ${n}. ${filler(n, 40)}`,
  };
  const id = `call_${n}`;
  const tools: LlmMessage[] =
    n % 2 === 1
      ? [
          {
            role: 'assistant',
            content: null,
            tool_calls: [
              { id, type: 'function', function: { name: 'read_file', arguments: `{"path":"plan/${n}.md"}` } },
            ],
          },
          { role: 'tool', tool_call_id: id, content: `# Section ${n}\n${filler(n + 1000, 60)}` },
        ]
      : [];
  const answer: LlmMessage = {
    role: 'assistant',
    content: `Section ${n} reviewed: ${filler(n + 2000, 30)}.`,
  };
  return { user, tools, answer };
}

interface Step {
  turn: number;
  /** Ratio of the whole history (what a loop without context management would send). */
  fullRatio: number;
  calls: string[];
  request: LlmMessage[];
  prepared: PreparedContext;
}

/** Play `turns` turns through the manager the way the loop does, one prepare per LLM call. */
async function chat(h: Harness, turns: number, stored: LlmMessage[] = []): Promise<Step[]> {
  const steps: Step[] = [];
  for (let turn = 1; turn <= turns; turn++) {
    const { user, tools, answer } = turnMessages(turn);
    const thisTurn: LlmMessage[] = [user];
    for (const round of tools.length > 0 ? [[], tools] : [[]]) {
      thisTurn.push(...round);
      const messages = [SYSTEM, ...stored, ...thisTurn];
      const fullRatio = (await counter.countPrompt(MODEL, messages)) / WINDOW;
      const prepared = await h.manager.prepare(h.request(messages));
      steps.push({ turn, fullRatio, calls: h.takeCalls(), request: messages, prepared });
    }
    stored.push(...thisTurn, answer);
  }
  return steps;
}

function text(message: LlmMessage | undefined): string {
  return typeof message?.content === 'string' ? message.content : JSON.stringify(message?.content ?? '');
}

/** Every tool result follows its call in the same view, and every call has its result. */
function expectToolPairsIntact(messages: readonly LlmMessage[]): void {
  const open = new Set<string>();
  for (const message of messages) {
    if (message.role === 'assistant') {
      expect(open.size).toBe(0);
      for (const call of message.tool_calls ?? []) open.add(call.id);
    } else if (message.role === 'tool') {
      expect(open.has(message.tool_call_id)).toBe(true);
      open.delete(message.tool_call_id);
    } else {
      expect(open.size).toBe(0);
    }
  }
}

describe('ContextManager in a long scripted chat', () => {
  it('flushes once when the prompt first reaches 60% and compacts when it first reaches 70%', async () => {
    const h = await harness();
    const steps = await chat(h, LONG_CHAT);
    const firstFlush = steps.findIndex((step) => step.calls.includes('flush'));
    const firstSummary = steps.findIndex((step) => step.calls.includes('summary'));
    expect(firstFlush).toBe(steps.findIndex((step) => step.fullRatio >= 0.6));
    expect(firstSummary).toBe(steps.findIndex((step) => step.fullRatio >= 0.7));
    expect(firstFlush).toBeLessThan(firstSummary);
    // Exactly one flush per compaction cycle, never more.
    const calls = steps.flatMap((step) => step.calls);
    const cycles = calls.join(' ').split('summary').slice(0, -1);
    expect(cycles.length).toBeGreaterThanOrEqual(3);
    for (const cycle of cycles) expect(cycle.trim().split(/\s+/)).toEqual(['flush']);
    expect(h.notices).toContain('Saved 2 facts from this conversation to memory before compacting it.');
    expect(h.notices.some((notice) => /^Compacted \d+ older messages into a summary\.$/.test(notice))).toBe(
      true,
    );
  });

  it('tries a failed flush once more right before compacting, and not on every step in between', async () => {
    const h = await harness({ flush: 'fails-once' });
    const steps = await chat(h, LONG_CHAT);
    const firstCompaction = steps.findIndex((step) => step.calls.includes('summary'));
    const firstCycle = steps.slice(0, firstCompaction + 1).flatMap((step) => step.calls);
    expect(firstCycle).toEqual(['flush', 'flush', 'summary']);
    expect(steps[firstCompaction]?.calls).toEqual(['flush', 'summary']);
    expect(text(steps.at(-1)?.prepared.messages[0])).toContain('4417');
  });

  it('asks the summariser for facts only from messages no flush has read', async () => {
    const flushed = await harness({ settings: { window_tokens: 20_000 } });
    const steps = await chat(flushed, 8);
    await flushed.manager.compact(flushed.request(steps.at(-1)?.request ?? []), 'directive');
    const summaryRequest = flushed.llm.requests.find((request) => fastCallKind(request) === 'summary');
    expect(fastCallText(summaryRequest)).not.toContain('NOT YET SAVED');
    expect(readFileSync(join(flushed.dir, 'workspace', 'MEMORY.md'), 'utf8')).not.toContain('Bo Lind');

    const unflushed = await harness({ flush: 'fails' });
    const unflushedSteps = await chat(unflushed, LONG_CHAT);
    const firstSummary = unflushed.llm.requests.find((request) => fastCallKind(request) === 'summary');
    expect(fastCallText(firstSummary)).toContain('Transcript to fold in:\n=== NOT YET SAVED ===\n');
    expect(readFileSync(join(unflushed.dir, 'workspace', 'MEMORY.md'), 'utf8')).toContain('Bo Lind owns');
    expect(text(unflushedSteps.at(-1)?.prepared.messages[0])).toContain(
      'release owner: Bo Lind owns the spring release',
    );
  });

  it('keeps every prompt it prepares under the compaction threshold', async () => {
    const h = await harness();
    const steps = await chat(h, LONG_CHAT);
    expect(Math.max(...steps.map((step) => step.fullRatio))).toBeGreaterThan(2);
    for (const step of steps) expect(step.prepared.usedRatio).toBeLessThan(0.7);
  });

  it('still carries a fact stated in the first message after that message was compacted away', async () => {
    const h = await harness();
    const steps = await chat(h, LONG_CHAT);
    const last = steps.at(-1)?.prepared.messages ?? [];
    expect(last.slice(1).some((message) => text(message).includes('4417'))).toBe(false);
    expect(text(last[0])).toContain("locker code: Ada's locker code is 4417");
    expect(text(last[0])).toContain('USER PROFILE:\nA release engineer who likes short answers.');
    // Saved three ways: searchable memory, MEMORY.md and the day's log.
    const hits = await h.memory.search({ query: 'locker code', config: { minScore: 0, hardMinScore: 0 } });
    expect(hits.hits.some((hit) => hit.item.content.includes('4417'))).toBe(true);
    expect(readFileSync(join(h.dir, 'workspace', 'MEMORY.md'), 'utf8')).toContain(
      "Ada's locker code is 4417",
    );
    expect(readFileSync(join(h.dir, 'workspace', 'memory', '2026-03-14.md'), 'utf8')).toContain('4417');
  });

  it('never separates a tool call from its result and starts the kept part at a user message', async () => {
    const h = await harness();
    for (const step of await chat(h, LONG_CHAT)) {
      expectToolPairsIntact(step.prepared.messages);
      if (text(step.prepared.messages[0]).includes('Conversation memory')) {
        expect(step.prepared.messages[1]?.role).toBe('user');
      }
    }
  });

  it('keeps the last keep_turns turns verbatim', async () => {
    const h = await harness({ settings: { keep_turns: 3 } });
    for (const step of await chat(h, LONG_CHAT)) {
      const users = step.request.flatMap((message, index) => (message.role === 'user' ? [index] : []));
      const keptFrom = users.at(-3) ?? 1;
      const kept = step.request.slice(keptFrom);
      expect(step.prepared.messages.slice(-kept.length)).toEqual(kept);
    }
  });
});

describe('ContextManager compaction paths', () => {
  it('on an overflow flushes the cycle first, then compacts, even below the thresholds', async () => {
    const h = await harness({ settings: { window_tokens: 20_000 } });
    const steps = await chat(h, 10);
    expect(steps.flatMap((step) => step.calls)).toEqual([]);
    const messages = steps.at(-1)?.request ?? [];
    const before = steps.at(-1)?.prepared.promptTokens ?? 0;
    const compacted = await h.manager.compact(h.request(messages), 'overflow');
    expect(h.takeCalls()).toEqual(['flush', 'summary']);
    expect(compacted.promptTokens).toBeLessThan(before / 2);
    expect(h.notices[0]).toMatch(/^Saved 2 facts/);
    expect(h.notices[1]).toMatch(/^Compacted \d+ older messages/);
  });

  it('compacts on the /compact directive and says when there is nothing to compact', async () => {
    const h = await harness({ settings: { window_tokens: 20_000 } });
    const short = await chat(h, 2);
    await h.manager.compact(h.request(short.at(-1)?.request ?? []), 'directive');
    expect(h.notices).toEqual([
      'Nothing to compact: the conversation is within the last 2 turns, which stay as they are.',
    ]);
    const long = await chat(h, 8, []);
    await h.manager.compact(h.request(long.at(-1)?.request ?? []), 'directive');
    expect(h.takeCalls()).toEqual(['flush', 'summary']);
  });

  it('truncates instead when the summariser fails under adaptive, keeping a digest of what it dropped', async () => {
    const h = await harness({ summariser: 'fails' });
    const steps = await chat(h, 20);
    const compactedAt = steps.findIndex((step) => step.calls.includes('summary'));
    const prepared = steps[compactedAt]?.prepared;
    expect(prepared?.usedRatio).toBeLessThan(0.7);
    expect(text(prepared?.messages[0])).toContain('DROPPED WITHOUT A SUMMARY:\n- messages 1–');
    expect(text(prepared?.messages[0])).toContain('tools used: read_file ×');
    expect(h.notices).toContainEqual(
      expect.stringMatching(/^The summariser failed: dropped \d+ older messages/),
    );
    expect(text(prepared?.messages[0])).toContain('the user asked "Turn');
  });

  it('truncates a mostly-tool-output stretch without asking the summariser', async () => {
    const h = await harness();
    const stored: LlmMessage[] = [];
    for (let round = 0; round < 12; round++) {
      const id = `call_${round}`;
      stored.push(
        { role: 'user', content: `Check log ${round}.` },
        {
          role: 'assistant',
          content: null,
          tool_calls: [
            { id, type: 'function', function: { name: 'run_command', arguments: '{"cmd":"cat log"}' } },
          ],
        },
        { role: 'tool', tool_call_id: id, content: filler(round, 300) },
        { role: 'assistant', content: 'Looks fine.' },
      );
    }
    const prepared = await h.manager.prepare(h.request([SYSTEM, ...stored]));
    expect(h.takeCalls()).toEqual(['flush']);
    expect(text(prepared.messages[0])).toContain('tools used: run_command ×10');
  });

  it('hard-prunes to the last four message groups after three summariser failures in a row', async () => {
    const h = await harness({ summariser: 'fails', settings: { strategy: 'progressive' } });
    const steps = await chat(h, LONG_CHAT);
    const attempts = steps.filter((step) => step.calls.includes('summary'));
    expect(h.notices.filter((notice) => notice.startsWith('Compacting the conversation failed ('))).toEqual([
      'Compacting the conversation failed (1 of 3 before older messages are dropped).',
      'Compacting the conversation failed (2 of 3 before older messages are dropped).',
    ]);
    const pruned = attempts[2];
    expect(h.notices).toContain(
      'Compacting the conversation failed 3 times in a row: kept only the system prompt, the conversation memory and the last 4 message groups.',
    );
    // System prompt, then exactly the last four groups of what was asked.
    expect(pruned?.prepared.messages.slice(1)).toEqual(lastGroups(pruned?.request ?? [], 4));
    // The breaker is open: later compactions truncate without calling the summariser.
    expect(attempts).toHaveLength(3);
    expect(steps.at(-1)?.prepared.usedRatio).toBeLessThan(0.7);
  });

  it('asks the summariser again once the breaker has cooled down', async () => {
    const h = await harness({ summariser: 'fails', settings: { strategy: 'progressive' } });
    const stored: LlmMessage[] = [];
    await chat(h, 30, stored);
    expect(h.llm.requests.map(fastCallKind).filter((kind) => kind === 'summary')).toHaveLength(3);
    await h.clock.advance(10 * 60_000);
    h.takeCalls();
    const more = await chat(h, 12, stored);
    expect(more.flatMap((step) => step.calls)).toContain('summary');
  });

  it('adds a wrap-up note at 80% when the kept turns alone fill the window', async () => {
    const h = await harness({ settings: { keep_turns: 4 } });
    const big = filler(7, 650);
    const messages: LlmMessage[] = [SYSTEM];
    for (let turn = 0; turn < 4; turn++)
      messages.push({ role: 'user', content: big }, { role: 'assistant', content: 'ok' });
    const prepared = await h.manager.prepare(h.request(messages));
    expect(prepared.usedRatio).toBeGreaterThan(0.8);
    expect(text(prepared.messages[0])).toMatch(
      /Context is \d+% full\. Finish the current step and wrap up soon/,
    );
  });
});

describe('ContextManager flush', () => {
  it('still writes MEMORY.md and the daily log when the memory engine is unavailable', async () => {
    const h = await harness({ memoryFails: true });
    const steps = await chat(h, LONG_CHAT);
    expect(steps.some((step) => step.calls.includes('summary'))).toBe(true);
    expect(readFileSync(join(h.dir, 'workspace', 'MEMORY.md'), 'utf8')).toContain('4417');
    expect(readFileSync(join(h.dir, 'workspace', 'memory', '2026-03-14.md'), 'utf8')).toContain('4417');
  });

  it('does not count a flush cut short by the client leaving, and runs it on the next call', async () => {
    const h = await harness();
    const steps = await chat(h, LONG_CHAT);
    const firstFlush = steps.findIndex((step) => step.calls.includes('flush'));
    const fresh = await harness();
    const messages = steps[firstFlush]?.request ?? [];
    await expect(fresh.manager.prepare(fresh.request(messages, AbortSignal.abort()))).rejects.toThrow();
    await fresh.manager.prepare(fresh.request(messages));
    expect(fresh.llm.requests.map(fastCallKind)).toEqual(['flush']);
    expect(fresh.notices).toEqual(['Saved 2 facts from this conversation to memory before compacting it.']);
  });
});

describe('ContextManager token counting', () => {
  it('answers from the estimate while far from the thresholds, without waiting for the tokenizer', async () => {
    const fresh = new TokenCounter();
    const h = await harness({ counter: fresh });
    const messages: LlmMessage[] = [SYSTEM, { role: 'user', content: 'Hello, what can you do?' }];
    const prepared = await h.manager.prepare(h.request(messages));
    expect(prepared.promptTokens).toBe(fresh.estimatePrompt(messages));
  });

  it('counts exactly with the tokenizer once the prompt nears a threshold', async () => {
    const fresh = new TokenCounter();
    const h = await harness({ counter: fresh, settings: { keep_turns: 10 } });
    const messages: LlmMessage[] = [SYSTEM, { role: 'user', content: filler(3, 1_500) }];
    const prepared = await h.manager.prepare(h.request(messages));
    expect(fresh.isReady(MODEL)).toBe(true);
    expect(prepared.promptTokens).toBe(await counter.countPrompt(MODEL, prepared.messages));
    expect(prepared.promptTokens).not.toBe(fresh.estimatePrompt(prepared.messages));
  });
});

describe('ContextManager state', () => {
  it('resumes a compaction after a restart without summarising again', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'context-int-'));
    cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
    const first = await harness({ dir });
    const steps = await chat(first, 20);
    const last = steps.at(-1);
    first.manager.close();
    const second = await harness({ dir });
    const resumed = await second.manager.prepare(second.request(last?.request ?? []));
    expect(second.takeCalls()).toEqual([]);
    expect(resumed.messages).toEqual(last?.prepared.messages);
  });

  it('starts over when the conversation was reset', async () => {
    const h = await harness();
    const steps = await chat(h, 20);
    expect(text(steps.at(-1)?.prepared.messages[0])).toContain('Conversation memory');
    const restarted = [SYSTEM, { role: 'user', content: 'Hello again.' } satisfies LlmMessage];
    const prepared = await h.manager.prepare(h.request(restarted));
    expect(prepared.messages).toEqual(restarted);
    expect(existsSync(join(h.dir, 'agent.db'))).toBe(true);
  });
});

/** The messages of the last `count` groups (a tool call with its results is one group). */
function lastGroups(messages: readonly LlmMessage[], count: number): LlmMessage[] {
  const starts: number[] = [];
  messages.forEach((message, index) => {
    if (index > 0 && message.role !== 'tool') starts.push(index);
  });
  return messages.slice(starts.at(-count));
}
