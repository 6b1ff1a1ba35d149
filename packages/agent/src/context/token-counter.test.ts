import { readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { estimateTokens } from '@openlegion/memory';
import { Tiktoken } from 'js-tiktoken/lite';
import cl100k from 'js-tiktoken/ranks/cl100k_base';
import o200k from 'js-tiktoken/ranks/o200k_base';
import { describe, expect, it } from 'vitest';
import type { LlmMessage } from './context-manager.js';
import { TokenCounter, tokenizerFor } from './token-counter.js';

const REPO = fileURLToPath(new URL('../../../../', import.meta.url));
/** Fixtures kept in the repository (test/fixtures/README.md): the tests need nothing beside it. */
const FIXTURES = `${REPO}test/fixtures`;
const cl100kEncoder = new Tiktoken(cl100k);
const o200kEncoder = new Tiktoken(o200k);

interface Conversation {
  sessions: Array<{ turns: Array<{ speaker: string; text: string }> }>;
}

/** Real text of the kinds a prompt holds: docs, code, chat, JSON tool output, HTML. */
function samples(): Record<string, string> {
  const docs = readdirSync(`${REPO}docs`)
    .filter((file) => file.endsWith('.md'))
    .sort()
    .map((file) => readFileSync(`${REPO}docs/${file}`, 'utf8'))
    .join('\n');
  const code = [
    'memory/src/memory-engine.ts',
    'host/src/lanes/lane-repository.ts',
    'protocol/src/mesh-config.ts',
  ]
    .map((file) => readFileSync(`${REPO}packages/${file}`, 'utf8'))
    .join('\n');
  // A made-up chat between two friends over seven sessions, with its questions and answers.
  const conversationJson = readFileSync(`${FIXTURES}/conversation/conversation.json`, 'utf8');
  const conversation = JSON.parse(conversationJson) as Conversation;
  const dialogue = conversation.sessions
    .flatMap((session) => session.turns)
    .map((turn) => `${turn.speaker}: ${turn.text}`)
    .join('\n');
  const json = JSON.stringify(conversation, null, 2);
  // Three saved real-world pages (Apache-2.0, from Mozilla Readability's test corpus).
  const html = ['ars-1', 'gitlab-blog', 'lwn-1']
    .map((site) => readFileSync(`${FIXTURES}/web-pages/${site}/source.html`, 'utf8'))
    .join('\n');
  return { docs, code, dialogue, json, html };
}

describe('estimateTokens', () => {
  it('stays within 8% of cl100k_base on docs, code, dialogue, JSON and HTML', () => {
    for (const [kind, text] of Object.entries(samples())) {
      const exact = cl100kEncoder.encode(text, [], []).length;
      const error = Math.abs(estimateTokens(text) - exact) / exact;
      expect({ kind, withinTolerance: error <= 0.08 }).toEqual({ kind, withinTolerance: true });
    }
  });

  it('is closer to the real count than chars/3.5 over all the samples together', () => {
    let estimateError = 0;
    let constantError = 0;
    for (const text of Object.values(samples())) {
      const exact = o200kEncoder.encode(text, [], []).length;
      estimateError += Math.abs(estimateTokens(text) - exact) / exact;
      constantError += Math.abs(text.length / 3.5 - exact) / exact;
    }
    expect(estimateError).toBeLessThan(constantError / 2);
  });

  it('counts nothing in an empty text and something in any other', () => {
    expect(estimateTokens('')).toBe(0);
    expect(estimateTokens('a')).toBeGreaterThan(0);
    expect(estimateTokens('你好世界')).toBeGreaterThanOrEqual(4);
  });
});

describe('tokenizerFor', () => {
  it('gives OpenAI families their encoding and every other model the estimate', () => {
    expect(tokenizerFor('openai/gpt-4.1-mini')).toBe('o200k_base');
    expect(tokenizerFor('openai/gpt-4o')).toBe('o200k_base');
    expect(tokenizerFor('openrouter/openai/o3-mini')).toBe('o200k_base');
    expect(tokenizerFor('openai/gpt-4')).toBe('cl100k_base');
    expect(tokenizerFor('openai/gpt-3.5-turbo')).toBe('cl100k_base');
    expect(tokenizerFor('anthropic/claude-sonnet-4-5')).toBe('estimate');
    expect(tokenizerFor('ollama/llama3.1:8b')).toBe('estimate');
  });
});

describe('TokenCounter', () => {
  const counter = new TokenCounter();
  const text = 'The quarterly report is due on Friday; send it to finance@example.com.';

  it('counts an OpenAI prompt exactly: content tokens plus the chat framing', async () => {
    const messages: LlmMessage[] = [
      { role: 'system', content: 'You are terse.' },
      { role: 'user', content: text },
    ];
    const content = o200kEncoder.encode('You are terse.').length + o200kEncoder.encode(text).length;
    // 4 framing tokens per message (3 + the role) and 3 priming the reply.
    expect(await counter.countPrompt('openai/gpt-4o', messages)).toBe(content + 2 * 4 + 3);
  });

  it('counts tool calls, tool results and tool definitions', async () => {
    const base: LlmMessage[] = [{ role: 'user', content: 'read it' }];
    const args = JSON.stringify({ path: 'notes/quarterly-report-with-a-long-name.md' });
    const withTools: LlmMessage[] = [
      ...base,
      {
        role: 'assistant',
        content: null,
        tool_calls: [{ id: 'call_1', type: 'function', function: { name: 'read_file', arguments: args } }],
      },
      { role: 'tool', tool_call_id: 'call_1', content: text },
    ];
    const plain = await counter.countPrompt('openai/gpt-4o', base);
    const rounds = await counter.countPrompt('openai/gpt-4o', withTools);
    expect(rounds - plain).toBeGreaterThan(
      o200kEncoder.encode(args).length + o200kEncoder.encode(text).length,
    );
    const tool = {
      type: 'function' as const,
      function: { name: 'read_file', description: 'Read a file', parameters: { type: 'object' } },
    };
    expect(await counter.countPrompt('openai/gpt-4o', base, [tool])).toBeGreaterThan(plain + 10);
  });

  it('counts special-token text in a message as plain text instead of failing', async () => {
    const messages: LlmMessage[] = [{ role: 'user', content: 'what does <|endoftext|> mean?' }];
    expect(await counter.countPrompt('openai/gpt-4o', messages)).toBeGreaterThan(10);
  });

  it('counts models without a shipped tokenizer 10% above the estimate, to err early', async () => {
    const messages: LlmMessage[] = [{ role: 'user', content: text.repeat(20) }];
    const estimate = estimateTokens(text.repeat(20)) + 4 + 3;
    expect(await counter.countPrompt('anthropic/claude-sonnet-4-5', messages)).toBe(
      Math.ceil(estimate * 1.1),
    );
  });

  it('is ready at once for estimated models and after warming for OpenAI ones', async () => {
    const fresh = new TokenCounter();
    expect(fresh.isReady('anthropic/claude-haiku-4-5')).toBe(true);
    expect(fresh.isReady('openai/gpt-3.5-turbo')).toBe(false);
    await fresh.countText('openai/gpt-3.5-turbo', 'load it');
    expect(fresh.isReady('openai/gpt-3.5-turbo')).toBe(true);
  });
});
