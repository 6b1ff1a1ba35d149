import { existsSync } from 'node:fs';
import path from 'node:path';
import { loadMeshConfig } from '@openlegion/host/config';
import { systemClock } from '@openlegion/infra/clock';
import { openDatabase } from '@openlegion/infra/sqlite';
import { OpenLegionError } from '@openlegion/protocol';
import type { Command } from 'commander';
import type { CliOutput } from '../cli-output.js';
import type { CommandKit } from '../command-kit.js';

/**
 * Open the delivery spool in `<data_dir>/mesh.db` directly, with or without a running host.
 * Channels run inside `openlegion start`, not behind the host's operator API, so a host route
 * would need a way into that process; the file is simpler and works while the mesh is down
 * (a retried letter is then answered at the next start). It is safe beside a running channel:
 * SQLite WAL lets both write, a retry or drop is one UPDATE guarded by `state = 'dead'` (the
 * channel never touches dead rows), and the running channel's sweep (every 10 s) takes a retried
 * letter up. The same way `openlegion telegram pair` writes codes the channel reads.
 */
async function openSpool(configFile: string) {
  // Loaded here, not at the top: grammY and marked stay out of every other command's start-up.
  const { DeliverySpool } = await import('@openlegion/channels');
  const loaded = await loadMeshConfig(configFile);
  const db = openDatabase(path.join(loaded.dataDir, 'mesh.db'));
  return { db, spool: new DeliverySpool(db, systemClock) };
}

/** What each channel state means to the operator, in `openlegion status`. */
const STATE_WORDS: Record<string, string> = {
  starting: 'starting',
  connected: 'connected',
  reconnecting: 'reconnecting',
  rate_limited: 'rate limited (waiting, then on its own)',
  unreachable: 'unreachable (retrying)',
  token_rejected: 'token rejected: check its token in mesh.yaml and the vault',
  missing_permission: 'missing a permission (intent or scope)',
  forbidden: 'may not post where asked',
  stopped: 'stopped',
};

/**
 * The channels' lines of `openlegion status`: each channel's state as the running channel last
 * wrote it to mesh.db (channels run in the `openlegion start` process, not behind the host's API),
 * and the dead letters waiting. Reads only; prints nothing when no channel ever ran.
 */
export async function printChannelStatus(configFile: string, output: CliOutput): Promise<void> {
  const loaded = await loadMeshConfig(configFile);
  const file = path.join(loaded.dataDir, 'mesh.db');
  if (!existsSync(file)) return;
  const db = openDatabase(file);
  try {
    const has = (table: string) =>
      db.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?").get(table) !== undefined;
    if (!has('channel_status')) return;
    const rows = db
      .prepare<[], { channel: string; state: string; detail: string }>(
        'SELECT channel, state, detail FROM channel_status ORDER BY channel',
      )
      .all();
    const dead = db
      .prepare<[], { channel: string; n: number }>(
        "SELECT channel, COUNT(*) AS n FROM channel_inbound WHERE state = 'dead' GROUP BY channel",
      )
      .all();
    for (const row of rows) {
      const letters = dead.find((entry) => entry.channel === row.channel)?.n ?? 0;
      const words = STATE_WORDS[row.state] ?? row.state;
      const detail = row.detail ? ` (${row.detail})` : '';
      const tail = letters > 0 ? `; ${letters} dead letters (openlegion channels dead-letters)` : '';
      output.out(`  channel ${row.channel}: ${words}${detail}${tail}\n`);
    }
  } finally {
    db.close();
  }
}

const when = (ms: number) => new Date(ms).toISOString().replace(/\.\d{3}Z$/, 'Z');

function parseId(raw: string): number {
  const id = Number(raw);
  if (!Number.isSafeInteger(id) || id <= 0) {
    throw new OpenLegionError(
      'CHAN_DEAD_LETTER_UNKNOWN',
      `no dead letter ${raw} (ids are numbers; run without --retry to list them)`,
    );
  }
  return id;
}

/** `openlegion channels dead-letters [--retry ID | --drop ID]`: replies that kept failing. */
export function registerChannelsCommands(program: Command, kit: CommandKit): void {
  const channels = program
    .command('channels')
    .description('chat channels (Telegram, Discord, Slack): delivery');
  channels
    .command('dead-letters')
    .description('messages whose reply kept failing; --retry ID sends it again, --drop ID forgets it')
    .addOption(kit.configOption())
    .option('--retry <id>', 'put a dead letter back: the channel answers it (within 10 s while running)')
    .option('--drop <id>', 'forget a dead letter (a replay of it is still recognised)')
    .option('--json', 'print JSON')
    .action((options: { config: string; retry?: string; drop?: string; json?: boolean }) =>
      kit.run(async () => {
        const { db, spool } = await openSpool(options.config);
        try {
          if (options.retry !== undefined || options.drop !== undefined) {
            const retry = options.retry !== undefined;
            const raw = (retry ? options.retry : options.drop) ?? '';
            const id = parseId(raw);
            const done = retry ? spool.retryDead(id) : spool.dropDead(id);
            if (!done) {
              throw new OpenLegionError(
                'CHAN_DEAD_LETTER_UNKNOWN',
                `no dead letter ${raw} (openlegion channels dead-letters lists them)`,
                { details: { id } },
              );
            }
            kit.output.out(
              retry
                ? `dead letter ${id}: back in the spool; the channel answers it\n`
                : `dead letter ${id}: dropped\n`,
            );
            return 0;
          }
          const letters = spool.deadLetters();
          if (options.json) {
            kit.output.out(`${JSON.stringify(letters, null, 2)}\n`);
            return 0;
          }
          if (letters.length === 0) kit.output.out('no dead letters\n');
          for (const letter of letters) {
            kit.output.out(
              `${letter.id}  ${letter.channel}  ${letter.agent}  ${letter.attempts} tries  ${when(letter.failedAt)}  "${letter.preview.replace(/\s+/g, ' ').slice(0, 60)}"\n`,
            );
            kit.output.out(`    ${letter.lastError}\n`);
          }
          return 0;
        } finally {
          db.close();
        }
      })(),
    );
}
