import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { FakeClock } from '@openlegion/infra/clock';
import { findFreePorts } from '@openlegion/infra/http';
import { createLogger } from '@openlegion/infra/log';
import { meshConfigSchema } from '@openlegion/protocol';
import { type FakeLlm, startFakeLlm } from '@openlegion/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type FakeAgentBehaviour, FakeAgentRuntime } from '../../test/fake-agent-runtime.js';
import type { LoadedMeshConfig } from '../config/index.js';
import { createMeshHost } from '../mesh-host.js';
import type { MeshHost } from '../mesh-host-options.js';

const READY_TIMEOUT_MS = 30_000;

/**
 * A temporary agent an agent spawned pays from its spawner's budget, through the whole host on real
 * HTTP: the LLM proxy, the cost meter and `/api/costs`. The fake runtime's temporary agent never
 * reports ready, so it stays alive (starting) while the test makes its LLM calls with its token, and
 * ends when the fake clock passes its ready timeout.
 */
describe('fleet spawn costs (through the host)', () => {
  let dataDir: string;
  let llm: FakeLlm;
  let host: MeshHost;
  let url: string;
  let runtime: FakeAgentRuntime;
  const clock = new FakeClock(Date.parse('2026-03-10T12:00:00Z'));

  beforeAll(async () => {
    dataDir = mkdtempSync(path.join(tmpdir(), 'spawn-costs-'));
    // $1 per 1M input tokens, $2 per 1M output: each call is reserved at about $0.00203 (up to
    // 1,000 output tokens) and costs $0.002 (1,000 in, 500 out), so $0.005 pays for two.
    llm = await startFakeLlm({
      script: { default: { text: 'ok', usage: { prompt_tokens: 1_000, completion_tokens: 500 } } },
    });
    const [port, egressPort] = (await findFreePorts('127.0.0.1', 2)) as [number, number];
    const config = meshConfigSchema.parse({
      mesh: { name: 'spawncost', port, egress_port: egressPort, data_dir: dataDir },
      runtime: { kind: 'process', ready_timeout_ms: READY_TIMEOUT_MS },
      llm: {
        default_model: 'up/gpt-test',
        providers: { up: { kind: 'openai-compatible', base_url: 'http://127.0.0.1:9/v1' } },
        prices: { 'up/gpt-test': { input: 1, output: 2, max_output_tokens: 1_000 } },
      },
      agents: { lead: { permissions: { spawn: ['helper'] }, budget: { daily_usd: 0.005 } } },
      templates: {
        helper: {
          permissions: { pubsub: { subscribe: ['research.*'] } },
          subscriptions: [{ pattern: 'research.done' }],
        },
      },
    });
    const loaded: LoadedMeshConfig = {
      config,
      file: path.join(dataDir, 'mesh.yaml'),
      dataDir,
      resolvePath: (relative) => path.resolve(dataDir, relative),
    };
    // Its temporary agents (`helper-xxxx`, named at random) start but never report ready.
    const behaviours = new Proxy({} as Record<string, FakeAgentBehaviour>, {
      get: (_target, name) => (String(name).startsWith('helper-') ? 'silent' : undefined),
    });
    runtime = new FakeAgentRuntime(behaviours);
    host = createMeshHost({
      loaded,
      runtime: 'process',
      logger: createLogger({ level: 'silent' }),
      env: {},
      agentEntry: '/unused',
      agentRuntime: runtime,
      clock,
      baseUrlOverrides: { up: llm.url },
    });
    url = (await host.start()).url;
  }, 60_000);
  afterAll(async () => {
    await host?.stop();
    await llm?.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  const tokenOf = (agent: string) => {
    const spec = runtime.started.find((started) => started.agent === agent);
    if (!spec) throw new Error(`${agent} was not started`);
    return spec.env.MESH_TOKEN;
  };
  const chat = async (agent: string) => {
    const response = await fetch(`${url}/v1/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${tokenOf(agent)}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'up/gpt-test', messages: [{ role: 'user', content: 'hi' }] }),
    });
    return {
      status: response.status,
      body: (await response.json()) as { error?: { code: string; message: string } },
    };
  };
  const operator = async (route: string) => {
    const token = readFileSync(path.join(dataDir, 'operator-token'), 'utf8').trim();
    const response = await fetch(`${url}${route}`, { headers: { authorization: `Bearer ${token}` } });
    return response.json() as Promise<Record<string, unknown>>;
  };

  it("refuses a temporary agent's LLM calls once its spawner's budget is spent, bills them to the spawner, and keeps its template's subscriptions only while it lives", async () => {
    const spawned = await fetch(`${url}/mesh/spawn`, {
      method: 'POST',
      headers: { authorization: `Bearer ${tokenOf('lead')}`, 'content-type': 'application/json' },
      body: JSON.stringify({ template: 'helper', task: 'look it up' }),
    });
    expect(spawned.status).toBe(202);
    const helper = ((await spawned.json()) as { agent: { name: string } }).agent.name;
    expect(helper).toMatch(/^helper-[0-9a-f]{4}$/);
    await expect.poll(() => runtime.started.some((spec) => spec.agent === helper)).toBe(true);
    const subscribers = async () =>
      (
        (await operator('/api/pubsub/subscriptions')).subscriptions as { agent: string; pattern: string }[]
      ).map(({ agent, pattern }) => `${agent} ${pattern}`);
    // Its template's standing subscription was made as it was spawned.
    expect(await subscribers()).toEqual([`${helper} research.done`]);

    expect((await chat(helper)).status).toBe(200);
    expect((await chat(helper)).status).toBe(200);
    const refused = await chat(helper);
    expect(refused.status).toBe(402);
    expect(refused.body.error?.code).toBe('BUDGET_EXCEEDED');
    expect(refused.body.error?.message).toBe(
      `agent "${helper}" is a temporary agent that draws on agent "lead"'s budget: this call could cost up to $0.0020, but the daily budget of agent "lead" of $0.0050 has $0.0010 left ($0.0040 spent, $0.0000 held by calls in flight); it resets at 2026-03-11T00:00:00.000Z`,
    );
    // What its temporary agent spent is gone from the spawner's own budget too.
    const own = await chat('lead');
    expect(own.status).toBe(402);
    expect(own.body.error?.message).toMatch(
      /^agent "lead": this call could cost up to \$0\.0020, but its daily budget of \$0\.0050 has \$0\.0010 left \(\$0\.0040 spent/,
    );

    type Costs = {
      today: { agent: string; billed_to: string; calls: number; cost_usd: number }[];
      budgets: { agent: string; spent_today_usd: number; in_flight_usd: number }[];
    };
    // The usage rows are committed off the event loop, just after the calls answered.
    // (both of them: a poll that stopped at the first row flaked under load).
    await expect
      .poll(async () => ((await operator('/api/costs?agent=lead')) as Costs).today.map((row) => row.calls))
      .toEqual([2]);
    const costs = (await operator('/api/costs?agent=lead')) as Costs;
    expect(costs.today).toEqual([
      expect.objectContaining({
        agent: helper,
        billed_to: 'lead',
        calls: 2,
        cost_usd: expect.closeTo(0.004, 10),
      }),
    ]);
    expect(costs.budgets).toEqual([
      expect.objectContaining({
        agent: 'lead',
        spent_today_usd: expect.closeTo(0.004, 10),
        in_flight_usd: 0,
      }),
    ]);

    // It ends (it never became ready) and is removed: its spend stays its spawner's.
    await clock.advance(READY_TIMEOUT_MS + 1);
    await expect
      .poll(async () => ((await operator(`/api/spawn/${helper}`)).agent as { state: string }).state)
      .toBe('failed');
    await expect
      .poll(async () =>
        ((await operator('/api/costs')).budgets as { agent: string }[]).map(({ agent }) => agent),
      )
      .toEqual(['lead']);
    expect(await subscribers()).toEqual([]);
    const after = (await operator('/api/costs')) as Costs;
    expect(after.today).toEqual([expect.objectContaining({ agent: helper, billed_to: 'lead', calls: 2 })]);
    expect(after.budgets[0]?.spent_today_usd).toBeCloseTo(0.004, 10);
  }, 60_000);
});
