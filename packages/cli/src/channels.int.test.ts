import { parseMeshConfig } from '@openlegion/host/config';
import type { MeshHost } from '@openlegion/host/mesh';
import { type Database, migrate, openDatabase } from '@openlegion/infra/sqlite';
import { type ChannelMesh, OpenLegionError } from '@openlegion/protocol';
import { type FakeTelegram, readyAgentInfo, startFakeDiscord, startFakeTelegram } from '@openlegion/testkit';
import { pino } from 'pino';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startChannels } from './channels.js';

let telegram: FakeTelegram;
let db: Database;
let lines: string[];
const say = (text: string) => lines.push(text);
const logger = pino({ level: 'silent' });

const echoMesh: ChannelMesh = {
  agents: () => [readyAgentInfo('researcher')],
  async *chat(_agent, request) {
    yield { type: 'text_delta', text: `echo: ${request.message}` };
    yield {
      type: 'done',
      conversation_id: request.conversation_id ?? 'default',
      text: `echo: ${request.message}`,
    };
  },
  interrupt: () => {},
  pendingApprovals: () => [],
  decideApproval: async () => {},
  onNotice: () => () => {},
};

/** The parts of a MeshHost that channels use; the rest is not called here. */
function fakeHost(secrets: Record<string, string>): MeshHost {
  const unused = () => {
    throw new Error('not used by startChannels');
  };
  return {
    start: unused,
    stop: unused,
    status: unused,
    shutdownRequested: new Promise(() => {}),
    channelMesh: echoMesh,
    featureDatabase: (feature, steps) => {
      migrate(db, [{ feature, steps }]);
      return db;
    },
    resolveSecret: (reference) => {
      const value = secrets[reference];
      if (!value) throw new OpenLegionError('CONFIG_INVALID', `${reference} is not set: export it`);
      return value;
    },
    routes: unused,
  };
}

const loadedWith = (telegramYaml: string, channel = 'telegram') => {
  const config = parseMeshConfig(`llm:
  default_model: demo/scripted
  providers: { demo: { kind: scripted, script: demo.yaml } }
agents:
  researcher: { role: Finds sources }
channels:
  ${channel}: ${telegramYaml}
`);
  return { config, file: '/tmp/mesh.yaml', dataDir: '/tmp', resolvePath: (relative: string) => relative };
};

beforeEach(async () => {
  telegram = await startFakeTelegram();
  db = openDatabase(':memory:');
  lines = [];
});

afterEach(async () => {
  await telegram.close();
  db.close();
});

describe('startChannels', () => {
  it('starts an enabled Telegram channel, prints its pairing code, and the code pairs the owner', async () => {
    const loaded = loadedWith(
      `{ enabled: true, token: vault:TELEGRAM_BOT_TOKEN, api_root: "${telegram.url}" }`,
    );
    const stop = await startChannels(
      fakeHost({ 'vault:TELEGRAM_BOT_TOKEN': telegram.token }),
      loaded,
      logger,
      say,
    );
    try {
      expect(lines[0]).toBe('  ✓ telegram @openlegion_test_bot ready\n');
      const code = /\/pair ([A-Z2-9]{8})/.exec(lines[1] ?? '')?.[1] ?? '';
      telegram.sendPrivate({ id: 77 }, `/pair ${code}`);
      telegram.sendPrivate({ id: 77 }, 'hello');
      await telegram.waitFor(() =>
        telegram.messagesTo(77).some((message) => message.visible === 'echo: hello'),
      );
    } finally {
      await stop();
    }
  });

  it('reports a token Telegram rejects in one line and carries on without the channel', async () => {
    const loaded = loadedWith(
      `{ enabled: true, token: vault:TELEGRAM_BOT_TOKEN, api_root: "${telegram.url}" }`,
    );
    const stop = await startChannels(
      fakeHost({ 'vault:TELEGRAM_BOT_TOKEN': '1:revoked' }),
      loaded,
      logger,
      say,
    );
    expect(lines).toEqual([
      expect.stringMatching(
        /^ {2}✗ telegram not started \(CHAN_TOKEN_REJECTED\): Telegram rejected the bot token/,
      ),
    ]);
    await stop();
    expect(telegram.calls.map((call) => call.method)).toEqual(['getMe']);
  });

  it('reports an error of no known kind in one line too, instead of ending the fleet it runs beside', async () => {
    const loaded = loadedWith(
      `{ enabled: true, token: vault:TELEGRAM_BOT_TOKEN, api_root: "${telegram.url}" }`,
    );
    const host = {
      ...fakeHost({ 'vault:TELEGRAM_BOT_TOKEN': telegram.token }),
      featureDatabase: () => {
        throw new Error('database disk image is malformed');
      },
    };
    const stop = await startChannels(host, loaded, logger, say);
    expect(lines).toEqual([
      '  ✗ telegram not started (INTERNAL): database disk image is malformed; the mesh runs without it\n',
    ]);
    await stop();
    expect(telegram.calls).toEqual([]);
  });

  it('reports a token that is not set, and starts nothing when the channel is disabled', async () => {
    const enabled = loadedWith('{ enabled: true, token: vault:TELEGRAM_BOT_TOKEN }');
    await startChannels(fakeHost({}), enabled, logger, say);
    expect(lines).toEqual([expect.stringContaining('(CONFIG_INVALID): vault:TELEGRAM_BOT_TOKEN is not set')]);
    lines = [];
    await startChannels(fakeHost({}), loadedWith('{ enabled: false }'), logger, say);
    expect(lines).toEqual([]);
    expect(telegram.calls).toEqual([]);
  });
});

describe('startChannels with Discord', () => {
  it('starts an enabled Discord channel beside Telegram, prints its pairing code, and the code pairs the owner', async () => {
    const discord = await startFakeDiscord();
    const loaded = loadedWith(
      `{ enabled: true, token: vault:DISCORD_BOT_TOKEN, api_root: "${discord.apiRoot}", gateway_url: "${discord.gatewayUrl}" }`,
      'discord',
    );
    const stop = await startChannels(
      fakeHost({ 'vault:DISCORD_BOT_TOKEN': discord.token }),
      loaded,
      logger,
      say,
    );
    try {
      expect(lines[0]).toBe('  ✓ discord @openlegion_test ready\n');
      const code = /\/pair ([A-Z2-9]{8})/.exec(lines[1] ?? '')?.[1] ?? '';
      const ada = { id: '77', username: 'ada' };
      discord.sendDm(ada, `/pair ${code}`);
      discord.sendDm(ada, 'hello');
      await discord.waitFor(() =>
        discord.messagesIn(discord.dmChannelOf(ada.id)).some((message) => message.content === 'echo: hello'),
      );
    } finally {
      await stop();
      await discord.close();
    }
  });

  it('reports a token Discord rejects in one line and carries on without the channel', async () => {
    const discord = await startFakeDiscord();
    const loaded = loadedWith(
      `{ enabled: true, token: vault:DISCORD_BOT_TOKEN, api_root: "${discord.apiRoot}" }`,
      'discord',
    );
    const stop = await startChannels(fakeHost({ 'vault:DISCORD_BOT_TOKEN': 'revoked' }), loaded, logger, say);
    expect(lines).toEqual([
      '  ✗ discord not started (CHAN_TOKEN_REJECTED): Discord rejected the bot token (401 Unauthorized); check channels.discord.token (Bot → Reset Token in the developer portal); the mesh runs without it\n',
    ]);
    await stop();
    await discord.close();
  });
});
