import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { ChannelStatusBoard, DeliverySpool } from '@openlegion/channels';
import { FakeClock } from '@openlegion/infra/clock';
import { openDatabase } from '@openlegion/infra/sqlite';
import { beforeEach, describe, expect, it } from 'vitest';
import { capture } from '../../test/captured-output.js';
import { runCli } from '../program.js';
import { printChannelStatus } from './channels.js';

const MESH_YAML = `mesh: { name: ch, data_dir: data }
llm:
  default_model: demo/scripted
  providers: { demo: { kind: scripted, script: demo.yaml } }
agents:
  researcher: { role: Finds sources }
`;

let config: string;
const channels = async (...args: string[]) => {
  const output = capture();
  const code = await runCli(['node', 'openlegion', 'channels', ...args, '--config', config], output);
  return { code, out: output.stdout(), err: output.stderr() };
};
const withSpool = <T>(work: (spool: DeliverySpool) => T): T => {
  const db = openDatabase(path.join(path.dirname(config), 'data', 'mesh.db'));
  try {
    return work(new DeliverySpool(db, new FakeClock(Date.parse('2026-03-01T10:00:00Z'))));
  } finally {
    db.close();
  }
};

/** A message that failed for good, as a channel leaves it. */
const deadLetter = (spool: DeliverySpool, platformId: string): number => {
  spool.accept({
    channel: 'telegram',
    platformId,
    conversation: '42',
    sender: '42',
    agent: 'researcher',
    text: `what about ${platformId}?`,
    receivedAt: 0,
  });
  const id = spool.byPlatformId('telegram', platformId)?.id ?? 0;
  spool.claim(id);
  spool.dead(id, 'CHAN_API_ERROR: Forbidden: bot was blocked by the user');
  return id;
};

beforeEach(async () => {
  const dir = await mkdtemp(path.join(tmpdir(), 'openlegion-channels-cli-'));
  config = path.join(dir, 'mesh.yaml');
  await writeFile(config, MESH_YAML);
});

describe('openlegion channels dead-letters', () => {
  it('lists dead letters, retries one back into the spool and drops another', async () => {
    expect(await channels('dead-letters')).toMatchObject({ code: 0, out: 'no dead letters\n' });
    const [first, second] = withSpool((spool) => [deadLetter(spool, '100'), deadLetter(spool, '101')]);
    const listed = await channels('dead-letters');
    expect(listed.out).toContain(
      `${first}  telegram  researcher  1 tries  2026-03-01T10:00:00Z  "what about 100?"`,
    );
    expect(listed.out).toContain('    CHAN_API_ERROR: Forbidden: bot was blocked by the user');
    expect(await channels('dead-letters', '--retry', String(first))).toMatchObject({
      code: 0,
      out: `dead letter ${first}: back in the spool; the channel answers it\n`,
    });
    expect(withSpool((spool) => spool.get(first ?? 0))).toMatchObject({ state: 'accepted', attempts: 0 });
    expect(await channels('dead-letters', '--drop', String(second))).toMatchObject({ code: 0 });
    const json = JSON.parse((await channels('dead-letters', '--json')).out);
    expect(json).toEqual([]);
  });

  it('says which id is unknown', async () => {
    const unknown = await channels('dead-letters', '--retry', '999');
    expect(unknown.code).toBe(1);
    // CHAN_DEAD_LETTER_UNKNOWN: the message names the id and where the list is.
    expect(unknown.err).toBe(
      'openlegion: no dead letter 999 (openlegion channels dead-letters lists them)\n',
    );
    const malformed = await channels('dead-letters', '--drop', 'abc');
    expect(malformed.err).toContain('no dead letter abc (ids are numbers; run without --retry to list them)');
  });
});

describe('channel lines of openlegion status', () => {
  it('prints nothing before any channel ran, then each channel state and its dead letters', async () => {
    const before = capture();
    await printChannelStatus(config, before);
    expect(before.stdout()).toBe('');
    withSpool((spool) => {
      deadLetter(spool, '100');
      const db = openDatabase(path.join(path.dirname(config), 'data', 'mesh.db'));
      const board = new ChannelStatusBoard(db, new FakeClock(0));
      board.set('telegram', 'rate_limited', 'Telegram asked to wait 3 s');
      board.set('discord', 'token_rejected', '401: Unauthorized');
      db.close();
    });
    const output = capture();
    await printChannelStatus(config, output);
    expect(output.stdout()).toBe(
      [
        '  channel discord: token rejected: check its token in mesh.yaml and the vault (401: Unauthorized)',
        '  channel telegram: rate limited (waiting, then on its own) (Telegram asked to wait 3 s); 1 dead letters (openlegion channels dead-letters)',
        '',
      ].join('\n'),
    );
  });
});
