import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { TELEGRAM_FEATURE, TELEGRAM_MIGRATIONS, TelegramUsers } from '@openlegion/channels';
import { migrate, openDatabase } from '@openlegion/infra/sqlite';
import { beforeEach, describe, expect, it } from 'vitest';
import { capture } from '../../test/captured-output.js';
import { runCli } from '../program.js';

const MESH_YAML = `mesh: { name: tg, data_dir: data }
llm:
  default_model: demo/scripted
  providers: { demo: { kind: scripted, script: demo.yaml } }
agents:
  researcher: { role: Finds sources }
channels:
  telegram: { enabled: true, token: env:TELEGRAM_BOT_TOKEN, default_agent: researcher }
`;

let config: string;
const telegram = async (...args: string[]) => {
  const output = capture();
  const code = await runCli(['node', 'openlegion', 'telegram', ...args, '--config', config], output);
  return { code, out: output.stdout(), err: output.stderr() };
};
const withUsers = <T>(work: (users: TelegramUsers) => T): T => {
  const db = openDatabase(path.join(path.dirname(config), 'data', 'mesh.db'));
  try {
    migrate(db, [{ feature: TELEGRAM_FEATURE, steps: TELEGRAM_MIGRATIONS }]);
    return work(new TelegramUsers(db));
  } finally {
    db.close();
  }
};

beforeEach(async () => {
  const dir = await mkdtemp(path.join(tmpdir(), 'openlegion-telegram-cli-'));
  config = path.join(dir, 'mesh.yaml');
  await writeFile(config, MESH_YAML);
});

describe('openlegion telegram', () => {
  it('makes a pairing code in mesh.db that the channel accepts', async () => {
    const { code, out } = await telegram('pair');
    expect(code).toBe(0);
    const pairingCode = /pairing code: ([A-Z2-9]{8})/.exec(out)?.[1] ?? '';
    expect(out).toContain('the first to pair becomes the owner');
    const { TelegramPairing } = await import('@openlegion/channels');
    const { systemClock } = await import('@openlegion/infra/clock');
    const db = openDatabase(path.join(path.dirname(config), 'data', 'mesh.db'));
    const pairing = new TelegramPairing(db, new TelegramUsers(db), systemClock);
    expect(pairing.redeem(42, 'Ada', pairingCode)).toMatchObject({ kind: 'paired', user: { role: 'owner' } });
    db.close();
  });

  it('lists paired users and pending codes', async () => {
    withUsers((users) => {
      users.pair(42, 'Ada @ada', Date.parse('2026-03-01T10:00:00Z'));
      users.pair(43, 'Bob', Date.parse('2026-03-01T11:00:00Z'));
    });
    await telegram('pair');
    const { code, out } = await telegram('status', '--json');
    expect(code).toBe(0);
    expect(JSON.parse(out)).toEqual({
      enabled: true,
      users: [
        { user_id: 42, role: 'owner', name: 'Ada @ada', paired_at: '2026-03-01T10:00:00Z' },
        { user_id: 43, role: 'allowed', name: 'Bob', paired_at: '2026-03-01T11:00:00Z' },
      ],
      pending_codes: 1,
    });
  });

  it('revokes a paired user and says so for an unknown one', async () => {
    withUsers((users) => users.pair(42, 'Ada', Date.now()));
    expect(await telegram('revoke', '42')).toMatchObject({ code: 0, out: '42: no longer paired\n' });
    expect(withUsers((users) => users.get(42))).toBeUndefined();
    const unknown = await telegram('revoke', '42');
    expect(unknown.code).toBe(1);
    expect(unknown.err).toContain('no paired Telegram user 42');
  });
});
