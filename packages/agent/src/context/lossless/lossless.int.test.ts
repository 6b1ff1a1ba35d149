import { readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { FakeClock } from '@openlegion/infra/clock';
import { openDatabase } from '@openlegion/infra/sqlite';
import { MemoryEngine } from '@openlegion/memory';
import type { AgentTool, ToolResult } from '@openlegion/protocol';
import { startFakeLlm } from '@openlegion/testkit';
import OpenAI from 'openai';
import { pino } from 'pino';
import { afterEach, describe, expect, it } from 'vitest';
import type { LlmMessage } from '../context-manager.js';
import { createContextManager } from '../create-context-manager.js';
import { TokenCounter } from '../token-counter.js';
import { createLcmTools } from './lcm-tools.js';
import { chatTurn, openStores, SYSTEM, toolRound } from './lossless-test-kit.js';
import { SummaryStore } from './summary-store.js';

const MODEL = 'openai/gpt-4o';
const EARLY_FACT = 'The staging database port is 6543 and the owner is Ines Varga.';
/** The fast tier's one answer: it carries no fact, so the fact can only come back through the store. */
const SUMMARY = 'The user and the agent worked through several parts of the plan.';
const FLUSH_FACTS = JSON.stringify({
  facts: [{ key: 'staging port', value: 'The staging database port is 6543', category: 'entities' }],
});
const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

describe('the lossless strategy with a fast tier over HTTP', () => {
  it('after a 300-turn chat an early fact comes back through lcm_grep and lcm_expand', async () => {
    const llm = await startFakeLlm({
      script: {
        models: ['fast', MODEL],
        rules: [
          // The flush reads each span for facts before it is summarised.
          {
            match: { model: 'fast', last_message_regex: '^Transcript:[\\s\\S]*6543' },
            reply: { text: FLUSH_FACTS },
          },
          { match: { model: 'fast', last_message_regex: '^Transcript:' }, reply: { text: '{"facts":[]}' } },
          { match: { model: 'fast' }, reply: { text: SUMMARY } },
        ],
      },
    });
    const { conversations, db, dir } = openStores();
    const memory = MemoryEngine.open({ file: join(dir, 'memory.db') });
    const client = new OpenAI({ baseURL: llm.url, apiKey: 'agent-token', maxRetries: 0 });
    const manager = createContextManager({
      llm: async () => client,
      memory: () => memory,
      workspaceDir: join(dir, 'workspace'),
      database: db,
      settings: {
        window_tokens: 16_000,
        flush_at: 0.6,
        compact_at: 0.7,
        wrap_up_at: 0.95,
        strategy: 'lossless',
        keep_turns: 4,
      },
      logger: pino({ level: 'silent' }),
      clock: new FakeClock(0),
      tokenCounter: new TokenCounter(),
    });
    cleanups.push(async () => {
      manager.close();
      db.close();
      conversations.close();
      memory.close();
      await llm.close();
      rmSync(dir, { recursive: true, force: true });
    });

    let last: LlmMessage[] = [];
    for (let index = 1; index <= 300; index++) {
      conversations.append('conversation-1', chatTurn(index, index === 2 ? EARLY_FACT : undefined));
      if (index % 10 === 0) conversations.append('conversation-1', toolRound(index));
      const prepared = await manager.prepare({
        conversationId: 'conversation-1',
        model: MODEL,
        messages: [SYSTEM, ...(conversations.list('conversation-1') as LlmMessage[])],
        emit: () => undefined,
        signal: new AbortController().signal,
      });
      expect(prepared.usedRatio).toBeLessThan(0.9);
      last = prepared.messages;
    }
    // The fact left the prompt: the summaries hold only the fast tier's words.
    expect(JSON.stringify(last)).not.toContain('6543');
    expect(String(last[0]?.content)).toContain(SUMMARY);
    expect(
      llm.requests.filter((request) => (request.body as { model?: string }).model === 'fast').length,
    ).toBeGreaterThan(0);

    // Read for facts before it left the prompt, as under the other strategies.
    expect(readFileSync(join(dir, 'workspace', 'MEMORY.md'), 'utf8')).toContain(
      'The staging database port is 6543',
    );

    const store = new SummaryStore(openDatabase(join(dir, 'agent.db')));
    const tools = Object.fromEntries(createLcmTools(() => store).map((tool) => [tool.name, tool]));
    const run = async (name: string, input: unknown): Promise<string> => {
      const tool = tools[name] as AgentTool;
      const result: ToolResult = await tool.run(tool.input.parse(input), {
        workspace: dir,
        signal: new AbortController().signal,
      });
      const first = result.content[0];
      return first?.type === 'text' ? first.text : '';
    };
    const found = await run('lcm_grep', { pattern: 'staging port' });
    expect(found).toContain('message #3 (conversation-1, user):');
    // The leaf whose span holds message #3, found through the DAG, expands back to the fact.
    const leaf = store
      .all('conversation-1')
      .find((node) => node.depth === 0 && node.start <= 2 && node.end > 2);
    expect(leaf).toBeDefined();
    const described = await run('lcm_describe', { id: `S${leaf?.id}` });
    expect(described).toMatch(/parent: S\d+|parent: none/);
    const expanded = await run('lcm_expand', { id: `S${leaf?.id}` });
    expect(expanded).toContain(`#3 user: Turn 2 begins here. ${EARLY_FACT}`);
  });
});
