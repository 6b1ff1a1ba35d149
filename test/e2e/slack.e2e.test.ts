import { type FakeLlm, type FakeSlack, startFakeLlm, startFakeSlack } from '@openlegion/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dockerAnswers, removeMesh } from './support/docker-cli.js';
import { type E2eMesh, writeMesh } from './support/e2e-mesh.js';
import { runCli } from './support/run-cli.js';

const REPLY = 'Slack works: one two three four five six seven eight nine ten.';
const OWNER = { id: 'U0E2EADA' };
const STRANGER = { id: 'U0E2EEVE' };

const requireDocker = process.env.OPENLEGION_REQUIRE_DOCKER === '1';
const runtime = (await dockerAnswers()) ? 'docker' : 'process';
if (requireDocker && runtime !== 'docker')
  throw new Error('OPENLEGION_REQUIRE_DOCKER=1 but no Docker engine answers');

describe(`Slack (Socket Mode) with the ${runtime} runtime`, () => {
  let llm: FakeLlm;
  let slack: FakeSlack;
  let mesh: E2eMesh;
  let started: Awaited<ReturnType<typeof runCli>>;
  const env = () => ({
    E2E_PROVIDER_KEY: 'sk-e2e-slack',
    E2E_SLACK_BOT: slack.botToken,
    E2E_SLACK_APP: slack.appToken,
  });
  const cli = (...args: string[]) => runCli([...args, '--config', mesh.file], { env: env() });
  const textsTo = (person: { id: string }) =>
    slack.messagesIn(slack.dmOf(person)).map((message) => message.text);

  beforeAll(async () => {
    llm = await startFakeLlm({
      script: { rules: [{ match: { last_message: 'hello' }, reply: { text: REPLY, chunk_delay_ms: 300 } }] },
    });
    slack = await startFakeSlack({ memberOf: ['C0E2E'] });
    mesh = await writeMesh({
      prefix: 'e2e-slack',
      providerUrl: llm.url,
      runtime,
      agents: ['alpha'],
      extra: `channels:\n  slack: { enabled: true, bot_token: env:E2E_SLACK_BOT, app_token: env:E2E_SLACK_APP, default_agent: alpha, allowed_channels: [C0E2E], api_root: "${slack.url}" }\n`,
    });
    started = await cli('start', '--detach');
    expect(started.code, started.stdout + started.stderr).toBe(0);
  });

  afterAll(async () => {
    await cli('stop');
    await slack?.close();
    await llm?.close();
    if (runtime === 'docker') await removeMesh(mesh.name);
  });

  it('prints a pairing code at start, pairs the owner in a DM, and answers a stranger once with how to pair', async () => {
    expect(started.stdout).toContain('slack @openlegion ready (socket mode)');
    const code = /!pair ([A-Z0-9]{8})/.exec(started.stdout)?.[1];
    expect(code, started.stdout).toBeDefined();
    slack.sendDm(STRANGER, 'hi there');
    slack.sendDm(STRANGER, 'anyone?');
    slack.sendDm(OWNER, `!pair ${code}`);
    await slack.waitFor(() => textsTo(OWNER).length > 0, 20_000);
    expect(textsTo(OWNER)[0]).toMatch(/owner/i);
    await slack.waitFor(() => textsTo(STRANGER).length > 0, 20_000);
    expect(textsTo(STRANGER)).toHaveLength(1);
    expect(textsTo(STRANGER)[0]).toMatch(/pair/i);
  });

  it('brings a DM to the agent and streams the reply back by editing one message, once even when Slack retries', async () => {
    const before = textsTo(OWNER).length;
    const asked = slack.sendDm(OWNER, 'hello');
    const reply = await slack.waitFor(
      () =>
        slack
          .messagesIn(slack.dmOf(OWNER))
          .slice(before)
          .find((message) => message.text.includes(REPLY)),
      30_000,
    );
    expect(reply.edits.length).toBeGreaterThan(0);
    const retry = slack.replay(asked);
    await slack.waitFor(() => retry.acked, 10_000);
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(slack.messagesIn(slack.dmOf(OWNER)).slice(before)).toHaveLength(1);
    const asks = llm.requests.filter((request) => request.path === '/v1/chat/completions');
    expect(JSON.stringify(asks.at(-1)?.body)).toContain('hello');
  });

  it('answers a mention in an allowed channel in its thread, and ignores the channel without one', async () => {
    slack.sendChannelMessage('C0E2E', OWNER, 'hello without a mention');
    const asked = slack.mention('C0E2E', OWNER, 'hello');
    const reply = await slack.waitFor(
      () => slack.messagesIn('C0E2E').find((message) => message.text.includes(REPLY)),
      30_000,
    );
    expect(reply.thread_ts).toBe((asked.payload.event as { ts: string }).ts);
    expect(slack.messagesIn('C0E2E')).toHaveLength(1);
  });
});
