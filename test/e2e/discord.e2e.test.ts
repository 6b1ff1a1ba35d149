import { type FakeDiscord, type FakeLlm, startFakeDiscord, startFakeLlm } from '@openlegion/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dockerAnswers, removeMesh } from './support/docker-cli.js';
import { type E2eMesh, writeMesh } from './support/e2e-mesh.js';
import { runCli } from './support/run-cli.js';

const REPLY = 'Discord works: one two three four five six seven eight nine ten.';
const OWNER = { id: '424242424242424242', username: 'ada' };
const STRANGER = { id: '777777777777777777', username: 'eve' };

const requireDocker = process.env.OPENLEGION_REQUIRE_DOCKER === '1';
const runtime = (await dockerAnswers()) ? 'docker' : 'process';
if (requireDocker && runtime !== 'docker')
  throw new Error('OPENLEGION_REQUIRE_DOCKER=1 but no Docker engine answers');

describe(`Discord with the ${runtime} runtime`, () => {
  let llm: FakeLlm;
  let discord: FakeDiscord;
  let mesh: E2eMesh;
  let started: Awaited<ReturnType<typeof runCli>>;
  const env = () => ({ E2E_PROVIDER_KEY: 'sk-e2e-discord', E2E_DISCORD_TOKEN: discord.token });
  const cli = (...args: string[]) => runCli([...args, '--config', mesh.file], { env: env() });
  const dm = (user: { id: string }) => discord.messagesIn(discord.dmChannelOf(user.id));

  beforeAll(async () => {
    llm = await startFakeLlm({
      script: { rules: [{ match: { last_message: 'hello' }, reply: { text: REPLY, chunk_delay_ms: 300 } }] },
    });
    discord = await startFakeDiscord();
    mesh = await writeMesh({
      prefix: 'e2e-dc',
      providerUrl: llm.url,
      runtime,
      agents: ['alpha'],
      extra: `channels:\n  discord: { enabled: true, token: env:E2E_DISCORD_TOKEN, default_agent: alpha, api_root: "${discord.apiRoot}", gateway_url: "${discord.gatewayUrl}" }\n`,
    });
    started = await cli('start', '--detach');
    expect(started.code, started.stdout + started.stderr).toBe(0);
  });

  afterAll(async () => {
    await cli('stop');
    await discord?.close();
    await llm?.close();
    if (runtime === 'docker') await removeMesh(mesh.name);
  });

  it('prints a pairing code at start, pairs the owner in a DM, and answers a stranger once with how to pair', async () => {
    const code = /\/pair ([A-Z0-9]{8})/.exec(started.stdout)?.[1];
    expect(code, started.stdout).toBeDefined();
    expect(started.stdout).toContain('✓ discord @openlegion_test ready');
    discord.sendDm(STRANGER, 'hi there');
    discord.sendDm(STRANGER, 'anyone?');
    discord.sendDm(OWNER, `/pair ${code}`);
    await discord.waitFor(() => dm(OWNER).length > 0, 20_000);
    expect(dm(OWNER)[0]?.content).toMatch(/owner/i);
    await discord.waitFor(() => dm(STRANGER).length > 0, 20_000);
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(dm(STRANGER)).toHaveLength(1);
    expect(dm(STRANGER)[0]?.content).toMatch(/pair/i);
  });

  it('brings a DM to the agent and streams the reply back as edits of one message', async () => {
    const before = dm(OWNER).length;
    discord.sendDm(OWNER, 'hello');
    const reply = await discord.waitFor(
      () =>
        dm(OWNER)
          .slice(before)
          .find((message) => message.content.includes(REPLY)),
      30_000,
    );
    expect(reply.history.length).toBeGreaterThan(0);
    expect(dm(OWNER).slice(before)).toHaveLength(1);
    const asked = llm.requests.filter((request) => request.path === '/v1/chat/completions');
    expect(JSON.stringify(asked.at(-1)?.body)).toContain('hello');
  });
});
