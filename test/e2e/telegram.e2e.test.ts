import { type FakeLlm, type FakeTelegram, startFakeLlm, startFakeTelegram } from '@openlegion/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dockerAnswers, removeMesh } from './support/docker-cli.js';
import { type E2eMesh, writeMesh } from './support/e2e-mesh.js';
import { runCli } from './support/run-cli.js';

const REPLY = 'Telegram works: one two three four five six seven eight nine ten.';
const OWNER = { id: 4242, first_name: 'Ada' };
const STRANGER = { id: 777, first_name: 'Eve' };

const requireDocker = process.env.OPENLEGION_REQUIRE_DOCKER === '1';
const runtime = (await dockerAnswers()) ? 'docker' : 'process';
if (requireDocker && runtime !== 'docker')
  throw new Error('OPENLEGION_REQUIRE_DOCKER=1 but no Docker engine answers');

describe(`Telegram with the ${runtime} runtime`, () => {
  let llm: FakeLlm;
  let telegram: FakeTelegram;
  let mesh: E2eMesh;
  let started: Awaited<ReturnType<typeof runCli>>;
  const env = () => ({ E2E_PROVIDER_KEY: 'sk-e2e-telegram', E2E_TG_TOKEN: telegram.token });
  const cli = (...args: string[]) => runCli([...args, '--config', mesh.file], { env: env() });

  beforeAll(async () => {
    llm = await startFakeLlm({
      script: { rules: [{ match: { last_message: 'hello' }, reply: { text: REPLY, chunk_delay_ms: 300 } }] },
    });
    telegram = await startFakeTelegram();
    mesh = await writeMesh({
      prefix: 'e2e-tg',
      providerUrl: llm.url,
      runtime,
      agents: ['alpha'],
      extra: `channels:\n  telegram: { enabled: true, token: env:E2E_TG_TOKEN, default_agent: alpha, api_root: "${telegram.url}" }\n`,
    });
    started = await cli('start', '--detach');
    expect(started.code, started.stdout + started.stderr).toBe(0);
  });

  afterAll(async () => {
    await cli('stop');
    await telegram?.close();
    await llm?.close();
    if (runtime === 'docker') await removeMesh(mesh.name);
  });

  it('prints a pairing code at start, pairs the owner, and answers a stranger once with how to pair', async () => {
    const code = /\/pair ([A-Z0-9]{8})/.exec(started.stdout)?.[1];
    expect(code, started.stdout).toBeDefined();
    telegram.sendPrivate(STRANGER, 'hi there');
    telegram.sendPrivate(STRANGER, 'anyone?');
    telegram.sendPrivate(OWNER, `/pair ${code}`);
    await telegram.waitFor(() => telegram.messagesTo(OWNER.id).length > 0, 20_000);
    expect(telegram.messagesTo(OWNER.id)[0]?.text).toMatch(/owner/i);
    await telegram.waitFor(() => telegram.messagesTo(STRANGER.id).length > 0, 20_000);
    expect(telegram.messagesTo(STRANGER.id)).toHaveLength(1);
    expect(telegram.messagesTo(STRANGER.id)[0]?.text).toMatch(/pair/i);
  });

  it('brings a message to the agent in its container and streams the reply back as edits', async () => {
    const before = telegram.messagesTo(OWNER.id).length;
    telegram.sendPrivate(OWNER, 'hello');
    const reply = await telegram.waitFor(
      () =>
        telegram
          .messagesTo(OWNER.id)
          .slice(before)
          .find((message) => message.visible.includes(REPLY)),
      30_000,
    );
    expect(reply.history.length).toBeGreaterThan(0);
    const asked = llm.requests.filter((request) => request.path === '/v1/chat/completions');
    expect(JSON.stringify(asked.at(-1)?.body)).toContain('hello');
  });
});
