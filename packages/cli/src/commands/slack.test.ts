import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { ChannelPairing, ChannelUsers, DeliverySpool, sharedPairingTables } from '@openlegion/channels';
import { systemClock } from '@openlegion/infra/clock';
import { openDatabase } from '@openlegion/infra/sqlite';
import { beforeEach, describe, expect, it } from 'vitest';
import { capture } from '../../test/captured-output.js';
import { runCli } from '../program.js';

const MESH_YAML = `mesh: { name: sl, data_dir: data }
llm:
  default_model: demo/scripted
  providers: { demo: { kind: scripted, script: demo.yaml } }
agents:
  researcher: { role: Finds sources }
channels:
  slack: { enabled: true, bot_token: env:SLACK_BOT_TOKEN, app_token: env:SLACK_APP_TOKEN }
`;

let config: string;
const slack = async (...args: string[]) => {
  const output = capture();
  const code = await runCli(['node', 'openlegion', 'slack', ...args, '--config', config], output);
  return { code, out: output.stdout(), err: output.stderr() };
};
const withDb = <T>(work: (db: ReturnType<typeof openDatabase>) => T): T => {
  const db = openDatabase(path.join(path.dirname(config), 'data', 'mesh.db'));
  try {
    new DeliverySpool(db, systemClock); // brings the shared channels track
    return work(db);
  } finally {
    db.close();
  }
};

beforeEach(async () => {
  const dir = await mkdtemp(path.join(tmpdir(), 'openlegion-slack-cli-'));
  config = path.join(dir, 'mesh.yaml');
  await writeFile(config, MESH_YAML);
});

describe('openlegion slack', () => {
  it('makes a pairing code in mesh.db that the channel accepts', async () => {
    const { code, out } = await slack('pair');
    expect(code).toBe(0);
    const pairingCode = /pairing code: ([A-Z2-9]{8})/.exec(out)?.[1] ?? '';
    expect(out).toContain('send "!pair');
    withDb((db) => {
      const users = new ChannelUsers(db, 'slack');
      const pairing = new ChannelPairing(db, users, systemClock, sharedPairingTables('slack'));
      expect(pairing.redeem('U0ADA', 'U0ADA', pairingCode)).toMatchObject({
        kind: 'paired',
        user: { role: 'owner' },
      });
    });
  });

  it('lists paired people, pending codes and deliveries, and revokes', async () => {
    withDb((db) => new ChannelUsers(db, 'slack').pair('U0ADA', 'Ada', Date.parse('2026-03-01T10:00:00Z')));
    await slack('pair');
    const { code, out } = await slack('status', '--json');
    expect(code).toBe(0);
    expect(JSON.parse(out)).toEqual({
      enabled: true,
      users: [{ user_id: 'U0ADA', role: 'owner', paired_at: '2026-03-01T10:00:00Z' }],
      pending_codes: 1,
      deliveries: { accepted: 0, running: 0, answered: 0, dead: 0 },
    });
    expect(await slack('revoke', 'U0ADA')).toMatchObject({ code: 0, out: 'U0ADA: no longer paired\n' });
    const unknown = await slack('revoke', 'U0ADA');
    expect(unknown.code).toBe(1);
    expect(unknown.err).toContain('no paired Slack user U0ADA');
  });
});
