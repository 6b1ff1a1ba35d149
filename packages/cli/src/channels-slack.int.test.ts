import { parseMeshConfig } from '@openlegion/host/config';
import type { MeshHost } from '@openlegion/host/mesh';
import { type Database, migrate, openDatabase } from '@openlegion/infra/sqlite';
import { type ChannelMesh, OpenLegionError } from '@openlegion/protocol';
import { type FakeSlack, readyAgentInfo, startFakeSlack } from '@openlegion/testkit';
import { pino } from 'pino';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startChannels } from './channels.js';

let slack: FakeSlack;
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

const loadedWith = (slackYaml: string) => {
  const config = parseMeshConfig(`llm:
  default_model: demo/scripted
  providers: { demo: { kind: scripted, script: demo.yaml } }
agents:
  researcher: { role: Finds sources }
channels:
  slack: ${slackYaml}
`);
  return { config, file: '/tmp/mesh.yaml', dataDir: '/tmp', resolvePath: (relative: string) => relative };
};

beforeEach(async () => {
  slack = await startFakeSlack();
  db = openDatabase(':memory:');
  lines = [];
});

afterEach(async () => {
  await slack.close();
  db.close();
});

describe('startChannels with Slack', () => {
  it('starts an enabled Slack channel with tokens from the vault, prints its pairing code, and the code pairs the owner', async () => {
    const loaded = loadedWith(
      `{ enabled: true, bot_token: vault:SLACK_BOT_TOKEN, app_token: vault:SLACK_APP_TOKEN, api_root: "${slack.url}" }`,
    );
    const host = fakeHost({
      'vault:SLACK_BOT_TOKEN': slack.botToken,
      'vault:SLACK_APP_TOKEN': slack.appToken,
    });
    const stop = await startChannels(host, loaded, logger, say);
    try {
      expect(lines[0]).toBe('  ✓ slack @openlegion ready (socket mode)\n');
      const code = /!pair ([A-Z2-9]{8})/.exec(lines[1] ?? '')?.[1] ?? '';
      const person = { id: 'U0ADA' };
      slack.sendDm(person, `!pair ${code}`);
      slack.sendDm(person, 'hello');
      await slack.waitFor(() =>
        slack.messagesIn(slack.dmOf(person)).some((message) => message.text === 'echo: hello'),
      );
    } finally {
      await stop();
    }
  });

  it('reports a bot token Slack refuses in one line naming the field, and carries on without the channel', async () => {
    const loaded = loadedWith(
      `{ enabled: true, bot_token: vault:SLACK_BOT_TOKEN, app_token: vault:SLACK_APP_TOKEN, api_root: "${slack.url}" }`,
    );
    const host = fakeHost({
      'vault:SLACK_BOT_TOKEN': 'xoxb-revoked',
      'vault:SLACK_APP_TOKEN': slack.appToken,
    });
    const stop = await startChannels(host, loaded, logger, say);
    expect(lines).toEqual([
      '  ✗ slack not started (CHAN_TOKEN_REJECTED): Slack refused the bot token (invalid_auth); check channels.slack.bot_token (xoxb-…); the mesh runs without it\n',
    ]);
    await stop();
    expect(slack.calls.map((call) => call.method)).toEqual(['auth.test']);
  });

  it('starts nothing when Slack is disabled', async () => {
    await startChannels(fakeHost({}), loadedWith('{ enabled: false }'), logger, say);
    expect(lines).toEqual([]);
    expect(slack.calls).toEqual([]);
  });
});
