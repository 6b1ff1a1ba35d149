import type { AddressInfo } from 'node:net';
import type { MeshConfigInput } from '@openlegion/protocol';
import { type FakeLlm, startFakeLlm } from '@openlegion/testkit';
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type FeatureTestHost, startFeatureTestHost } from '../../test/feature-test-host.js';
import { llmFeature } from '../llm/llm-feature.js';
import { environmentSecrets } from '../secrets/index.js';
import { costsFeature, USAGE_RECORDED, type UsageRecord } from './index.js';

// $1 per 1M input tokens and $2 per 1M output tokens: easy to check by hand.
const config: MeshConfigInput = {
  llm: {
    default_model: 'openai/gpt-test',
    prices: { 'openai/gpt-test': { input: 1, output: 2, cached_input: 0.5, max_output_tokens: 1_000 } },
    providers: { openai: { api_key: 'env:OPENAI_API_KEY' } },
  },
  agents: {
    rich: {},
    // Each call may cost up to (~30 prompt + 1,000 output tokens) ≈ $0.00203: 10 fit in $0.0205.
    thrifty: { budget: { daily_usd: 0.0205 } },
  },
};

describe('costs and budgets', () => {
  let fakeLlm: FakeLlm;
  let host: FeatureTestHost;
  let url: string;
  const recorded: UsageRecord[] = [];

  beforeAll(async () => {
    fakeLlm = await startFakeLlm({
      script: {
        default: {
          text: 'four words of answer',
          usage: { prompt_tokens: 1_000, completion_tokens: 500 },
          chunk_delay_ms: 20,
        },
      },
    });
    const costs = costsFeature();
    host = await startFeatureTestHost(
      [costs, llmFeature({ baseUrlOverrides: { openai: fakeLlm.url }, meterCosts: true })],
      config,
      { secrets: environmentSecrets({ OPENAI_API_KEY: 'sk-test' }) },
    );
    host.context.events.on(USAGE_RECORDED, (usage) => recorded.push(usage));
    await host.app.listen({ host: '127.0.0.1', port: 0 });
    url = `http://127.0.0.1:${(host.app.server.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    await host.stop();
    await fakeLlm.close();
  });

  const client = (agent: string) =>
    new OpenAI({ baseURL: `${url}/v1`, apiKey: host.agentAuth(agent).authorization.slice(7), maxRetries: 0 });

  it('records each call with the usage the provider reported, streamed or not, at the model price', async () => {
    await client('rich').chat.completions.create({
      model: 'openai/gpt-test',
      messages: [{ role: 'user', content: 'hi' }],
    });
    const stream = await client('rich').chat.completions.create({
      model: 'openai/gpt-test',
      messages: [{ role: 'user', content: 'hi' }],
      stream: true,
      stream_options: { include_usage: true },
    });
    for await (const _chunk of stream) {
      // drain
    }
    await expect.poll(() => recorded.length).toBe(2);
    for (const usage of recorded) {
      expect(usage).toMatchObject({
        agent: 'rich',
        model: 'openai/gpt-test',
        prompt_tokens: 1_000,
        completion_tokens: 500,
        estimated: 0,
      });
      expect(usage.cost_usd).toBeCloseTo((1_000 * 1 + 500 * 2) / 1e6, 10);
    }
    const costs = await host.app.inject({ url: '/api/costs?agent=rich', headers: host.operatorAuth });
    expect(costs.json().today).toEqual([
      expect.objectContaining({
        agent: 'rich',
        model: 'openai/gpt-test',
        calls: 2,
        cost_usd: expect.closeTo(0.004, 10),
      }),
    ]);
  });

  it('never lets 50 concurrent calls spend past a budget, and names the budget and its reset in the 402', async () => {
    const results = await Promise.allSettled(
      Array.from({ length: 50 }, () =>
        fetch(`${url}/v1/chat/completions`, {
          method: 'POST',
          headers: { ...host.agentAuth('thrifty'), 'content-type': 'application/json' },
          body: JSON.stringify({ model: 'openai/gpt-test', messages: [{ role: 'user', content: 'hi' }] }),
        }).then(async (response) => ({
          status: response.status,
          body: (await response.json()) as { error: { code: string; message: string } },
        })),
      ),
    );
    const answers = results.flatMap((result) => (result.status === 'fulfilled' ? [result.value] : []));
    const passed = answers.filter((answer) => answer.status === 200);
    const refused = answers.filter((answer) => answer.status === 402);
    expect(passed.length + refused.length).toBe(50);
    expect(passed.length).toBeGreaterThan(0);
    expect(refused.length).toBeGreaterThan(0);
    expect(refused[0]?.body.error.code).toBe('BUDGET_EXCEEDED');
    expect(refused[0]?.body.error.message).toMatch(
      /daily budget of \$0\.0205 .* it resets at \d{4}-\d{2}-\d{2}T00:00:00\.000Z$/,
    );
    const spent = (
      await host.app.inject({ url: '/api/costs?agent=thrifty', headers: host.operatorAuth })
    ).json().budgets[0];
    expect(spent.spent_today_usd).toBeLessThanOrEqual(0.0205);
    expect(spent.in_flight_usd).toBe(0);
  });

  it('gives a failed call its reservation back and records nothing for it', async () => {
    const before = recorded.length;
    const bad = await fetch(`${url}/v1/chat/completions`, {
      method: 'POST',
      headers: { ...host.agentAuth('rich'), 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'nowhere/x', messages: [{ role: 'user', content: 'hi' }] }),
    });
    expect(bad.status).toBeGreaterThanOrEqual(400);
    const budgets = (await host.app.inject({ url: '/api/costs', headers: host.operatorAuth })).json().budgets;
    expect(budgets.every((budget: { in_flight_usd: number }) => budget.in_flight_usd === 0)).toBe(true);
    expect(recorded.length).toBe(before);
  });
});
