import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { type FakeLlm, startFakeLlm } from '@openlegion/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dockerAnswers, removeMesh } from './support/docker-cli.js';
import { type E2eMesh, writeMesh } from './support/e2e-mesh.js';
import { runCli } from './support/run-cli.js';

/**
 * The lossless context store in a hardened container: a 300-turn chat on a small window is
 * summarised into the DAG as it goes (the summaries never carry the early fact), and the fact comes
 * back through lcm_grep and lcm_expand; the operator sees the same through `openlegion lcm`.
 */
const haveDocker = await dockerAnswers();
if (process.env.OPENLEGION_REQUIRE_DOCKER === '1' && !haveDocker) {
  throw new Error('OPENLEGION_REQUIRE_DOCKER=1 but no Docker engine answers');
}
const runtime = haveDocker ? 'docker' : 'process';
const TURNS = 300;
const EARLY_FACT = 'My locker code is 4417.';
const CONVERSATION = 'long-chat';

const script = {
  rules: [
    // The fast tier's calls: fact extraction (nothing kept, so memory recall cannot answer), and
    // summaries of spans and of summaries, which leave the fact out: only the lcm tools have it.
    { match: { last_message_regex: '^Transcript:' }, reply: { text: '{"facts":[]}' } },
    {
      match: { last_message_regex: '^(#\\d+ |These are summaries)' },
      reply: { text: 'The user logged routine harbour inspection notes, one per turn.' },
    },
    {
      match: { last_message: 'What is my locker code' },
      reply: { tool_calls: [{ name: 'lcm_grep', arguments: { pattern: 'locker code' } }] },
    },
    {
      match: { last_message_regex: 'messages match; lcm_expand' },
      reply: { tool_calls: [{ name: 'lcm_expand', arguments: { id: 'S1' } }] },
    },
    {
      match: { last_message_regex: '#1 user: My locker code is 4417' },
      reply: { text: 'Your locker code is 4417.' },
    },
  ],
  default: { text: 'Noted.' },
};

describe(`a 300-turn chat on the lossless context store (${runtime})`, () => {
  let llm: FakeLlm;
  let mesh: E2eMesh;
  let operatorToken: string;
  const env = { E2E_PROVIDER_KEY: 'sk-e2e-provider-key-lcm' };
  const cli = (...args: string[]) => runCli([...args, '--config', mesh.file], { env });

  /** One turn through the host's operator chat route; the answer's text. */
  async function say(message: string): Promise<string> {
    const response = await fetch(`http://127.0.0.1:${mesh.port}/api/agents/quill/chat`, {
      method: 'POST',
      headers: { authorization: `Bearer ${operatorToken}`, 'content-type': 'application/json' },
      body: JSON.stringify({ message, conversation_id: CONVERSATION }),
    });
    const text = await response.text();
    expect(response.status, text).toBe(200);
    const done = text.split('\n').find((line) => line.startsWith('data: {"type":"done"'));
    expect(done, text).toBeDefined();
    return (JSON.parse((done ?? '').slice('data: '.length)) as { text: string }).text;
  }

  beforeAll(async () => {
    llm = await startFakeLlm({ script });
    mesh = await writeMesh({
      prefix: `e2e-lcm-${runtime.slice(0, 4)}`,
      providerUrl: llm.url,
      runtime,
      agents: ['quill'],
      agentFields: { quill: 'tools: minimal, context: { window_tokens: 4000 }' },
    });
    const start = await cli('start', '--detach');
    expect(start.code, start.stdout + start.stderr).toBe(0);
    operatorToken = (await readFile(path.join(mesh.dataDir, 'operator-token'), 'utf8')).trim();
  }, 120_000);

  afterAll(async () => {
    await cli('stop');
    await llm?.close();
    if (runtime === 'docker') await removeMesh(mesh.name);
  });

  it('brings an early fact back through lcm_grep and lcm_expand after 300 turns', async () => {
    expect(await say(EARLY_FACT)).toBe('Noted.');
    for (let turn = 2; turn <= TURNS - 1; turn += 1) {
      await say(`Turn ${turn}: the harbour crane ${turn % 7} passed its inspection; log entry ${turn * 13}.`);
    }
    const mainCalls = () =>
      llm.requests
        .filter((request) => request.path === '/v1/chat/completions')
        .map((request) => request.body as { messages: { role: string; content: unknown }[] })
        .filter((body) => !/^(Transcript:|#\d+ |These are summaries)/.test(lastText(body)));
    // The fact left the prompt long ago: only summaries and the fresh tail are there.
    const before = mainCalls().at(-1);
    expect(JSON.stringify(before?.messages)).not.toContain('4417');
    expect(JSON.stringify(before?.messages)).toContain('routine harbour inspection notes');

    expect(await say('What is my locker code?')).toBe('Your locker code is 4417.');
    const tools = (mainCalls().at(-1)?.messages ?? [])
      .filter((message) => message.role === 'tool')
      .map((message) => String(message.content));
    expect(tools.some((content) => content.includes('message #1 ('))).toBe(true);
    expect(tools.some((content) => content.includes('#1 user: My locker code is 4417.'))).toBe(true);

    // The operator reads the same store.
    const grep = await cli('lcm', 'quill', 'grep', 'locker code', '--conversation', CONVERSATION);
    expect(grep.code, grep.stderr).toBe(0);
    expect(grep.stdout).toContain('My locker code is 4417.');
    const described = await cli('lcm', 'quill', 'describe', 'S1', '--conversation', CONVERSATION);
    expect(described.code, described.stderr).toBe(0);
    expect(described.stdout).toMatch(/messages 1–\d+/);
  }, 240_000);
});

function lastText(body: { messages: { content: unknown }[] }): string {
  const content = body.messages.at(-1)?.content;
  return typeof content === 'string' ? content : JSON.stringify(content ?? '');
}
