import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import {
  ChannelPairing,
  ChannelStatusBoard,
  ChannelUsers,
  DeliverySpool,
  DISCORD_FEATURE,
  DISCORD_MIGRATIONS,
  sharedPairingTables,
} from '@openlegion/channels';
import { FakeClock, systemClock } from '@openlegion/infra/clock';
import { migrate, openDatabase } from '@openlegion/infra/sqlite';
import { beforeEach, describe, expect, it } from 'vitest';
import { capture } from '../../test/captured-output.js';
import { runCli } from '../program.js';

const MESH_YAML = `mesh: { name: dc, data_dir: data }
llm:
  default_model: demo/scripted
  providers: { demo: { kind: scripted, script: demo.yaml } }
agents:
  researcher: { role: Finds sources }
channels:
  discord: { enabled: true, token: env:DISCORD_BOT_TOKEN, default_agent: researcher }
`;

let config: string;
const discord = async (...args: string[]) => {
  const output = capture();
  const code = await runCli(['node', 'openlegion', 'discord', ...args, '--config', config], output);
  return { code, out: output.stdout(), err: output.stderr() };
};
const withStore = <T>(work: (users: ChannelUsers, pairing: ChannelPairing<string, unknown>) => T): T => {
  const db = openDatabase(path.join(path.dirname(config), 'data', 'mesh.db'));
  try {
    new DeliverySpool(db, systemClock);
    const users = new ChannelUsers(db, 'discord');
    return work(users, new ChannelPairing(db, users, systemClock, sharedPairingTables('discord')));
  } finally {
    db.close();
  }
};

beforeEach(async () => {
  const dir = await mkdtemp(path.join(tmpdir(), 'openlegion-discord-cli-'));
  config = path.join(dir, 'mesh.yaml');
  await writeFile(config, MESH_YAML);
});

describe('openlegion discord', () => {
  it('makes a pairing code in mesh.db that the channel accepts', async () => {
    const { code, out } = await discord('pair');
    expect(code).toBe(0);
    expect(out).toContain('the first to pair becomes the owner');
    const pairingCode = /pairing code: ([A-Z2-9]{8})/.exec(out)?.[1] ?? '';
    expect(withStore((_users, pairing) => pairing.redeem('42', 'ada', pairingCode))).toMatchObject({
      kind: 'paired',
      user: { role: 'owner' },
    });
  });

  it('lists paired users, pending codes and deliveries', async () => {
    withStore((users) => users.pair('42', 'ada', Date.parse('2026-03-01T10:00:00Z')));
    await discord('pair');
    const { code, out } = await discord('status', '--json');
    expect(code).toBe(0);
    expect(JSON.parse(out)).toEqual({
      enabled: true,
      connection: null,
      users: [{ user_id: '42', role: 'owner', name: 'ada', paired_at: '2026-03-01T10:00:00Z' }],
      pending_codes: 1,
      deliveries: { answered: 0, in_progress: 0, dead_letters: 0 },
    });
  });

  it('shows why the running channel could not connect', async () => {
    const db = openDatabase(path.join(path.dirname(config), 'data', 'mesh.db'));
    migrate(db, [{ feature: DISCORD_FEATURE, steps: DISCORD_MIGRATIONS }]);
    const at = Date.parse('2026-03-01T10:00:00Z');
    new ChannelStatusBoard(db, new FakeClock(at)).set(
      'discord',
      'missing_permission',
      'Discord refused the MESSAGE_CONTENT intent (gateway close 4014)',
    );
    db.close();
    const { code, out } = await discord('status');
    expect(code).toBe(0);
    expect(out).toContain(
      'connection: missing_permission since 2026-03-01T10:00:00Z: Discord refused the MESSAGE_CONTENT intent (gateway close 4014)\n',
    );
  });

  it('revokes a paired user and says so for an unknown one', async () => {
    withStore((users) => users.pair('42', 'ada', Date.now()));
    expect(await discord('revoke', '42')).toMatchObject({ code: 0, out: '42: no longer paired\n' });
    const unknown = await discord('revoke', '42');
    expect(unknown.code).toBe(1);
    expect(unknown.err).toContain('no paired Discord user 42');
  });
});
