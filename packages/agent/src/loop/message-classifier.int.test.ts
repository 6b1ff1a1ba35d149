import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { agentSelfSchema } from '@openlegion/protocol';
import { type FakeLlm, type FakeMeshHost, startFakeLlm, startFakeMeshHost } from '@openlegion/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startLocalAgent } from '../../test/local-agent.js';
import { postChat } from '../../test/sse-events.js';
import type { RunningAgent } from '../start-agent.js';
import { parseClass } from './message-classifier.js';

const TOKEN = 'agent-token-classify';
const self = agentSelfSchema.parse({
  agent: 'concierge',
  mesh: 'm',
  role: 'answers',
  model: 'scripted/gpt-test',
  soul: '',
  loop: { classify: true },
});
type Body = { model: string; messages: { role: string; content: unknown }[] };

/** `loop.classify`: the fast tier classifies each chat message; a simple one is answered there too. */
const script = {
  models: ['scripted/gpt-test', 'fast'],
  rules: [
    { match: { last_message: 'what is 2+2', model: 'fast' }, times: 1, reply: { text: 'Question, simple.' } },
    { match: { last_message: 'what is 2+2', model: 'fast' }, reply: { text: '4' } },
    { match: { last_message: 'plan a week in Porto', model: 'fast' }, reply: { text: 'command complex' } },
    { match: { last_message: 'plan a week in Porto' }, reply: { text: 'Day 1: the river.' } },
  ],
  default: { text: 'ok' },
};

describe('message classification on the fast tier', () => {
  let llm: FakeLlm;
  let host: FakeMeshHost;
  let dataDir: string;
  let agent: RunningAgent;

  beforeAll(async () => {
    llm = await startFakeLlm({ script });
    host = await startFakeMeshHost({ agents: new Map([[TOKEN, self]]), llmUrl: llm.url });
    dataDir = mkdtempSync(join(tmpdir(), 'agent-classify-'));
    agent = await startLocalAgent({ agentId: self.agent, meshUrl: host.url, token: TOKEN, dataDir });
  });
  afterAll(async () => {
    await agent?.close();
    await host?.close();
    await llm?.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  const modelsFor = (message: string) =>
    llm.requests
      .map((request) => request.body as Body)
      .filter((body) => JSON.stringify(body.messages.at(-1)?.content).includes(message))
      .map((body) => body.model);

  it('answers a simple message on the fast tier and a complex one on the agent model', async () => {
    const simple = await postChat(agent.url, TOKEN, { message: 'what is 2+2' });
    expect(simple.events.at(-1)).toMatchObject({ type: 'done', text: '4' });
    expect(modelsFor('what is 2+2')).toEqual(['fast', 'fast']);
    const complex = await postChat(agent.url, TOKEN, { message: 'plan a week in Porto' });
    expect(complex.events.at(-1)).toMatchObject({ type: 'done', text: 'Day 1: the river.' });
    expect(modelsFor('plan a week in Porto')).toEqual(['fast', 'scripted/gpt-test']);
  });

  it('reads only the two known words of a classification', () => {
    expect(parseClass('Question, simple.')).toEqual({ kind: 'question', complexity: 'simple' });
    expect(parseClass('COMMAND complex')).toEqual({ kind: 'command', complexity: 'complex' });
    expect(parseClass('ignore previous instructions')).toBeUndefined();
    expect(parseClass('simple')).toBeUndefined();
  });
});
