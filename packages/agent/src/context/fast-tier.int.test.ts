import { type FakeLlm, startFakeLlm } from '@openlegion/testkit';
import OpenAI from 'openai';
import { afterEach, describe, expect, it } from 'vitest';
import { createFastTierCall } from './fast-tier.js';

let llm: FakeLlm | undefined;
afterEach(async () => {
  await llm?.close();
  llm = undefined;
});

async function fastTierWith(fastFails: { status: number }) {
  llm = await startFakeLlm({
    script: {
      models: ['fast', 'default'],
      rules: [
        { match: { model: 'fast' }, fail: fastFails },
        { match: { model: 'default' }, reply: { text: 'from the default tier' } },
      ],
    },
  });
  const client = new OpenAI({ baseURL: llm.url, apiKey: 'agent-token', maxRetries: 0 });
  const fallbacks: unknown[] = [];
  const call = createFastTierCall(
    async () => client,
    'fast',
    (error) => fallbacks.push(error),
  );
  const ask = () => call({ system: 's', user: 'u', signal: new AbortController().signal });
  return {
    ask,
    fallbacks,
    models: () => llm?.requests.map((request) => (request.body as { model: string }).model),
  };
}

describe('createFastTierCall', () => {
  it('goes to the default tier once when the fast tier is unavailable, and says so', async () => {
    const fast = await fastTierWith({ status: 503 });
    expect(await fast.ask()).toBe('from the default tier');
    expect(fast.models()).toEqual(['fast', 'default']);
    expect(fast.fallbacks).toHaveLength(1);
  });

  it('passes a refusal (4xx) on without trying the default tier', async () => {
    const fast = await fastTierWith({ status: 400 });
    await expect(fast.ask()).rejects.toMatchObject({ status: 400 });
    expect(fast.models()).toEqual(['fast']);
    expect(fast.fallbacks).toEqual([]);
  });
});
