import path from 'node:path';
import { loadMeshConfig } from '@openlegion/host/config';
import { systemClock } from '@openlegion/infra/clock';
import { migrate, openDatabase } from '@openlegion/infra/sqlite';
import { OpenLegionError } from '@openlegion/protocol';
import type { Command } from 'commander';
import type { CommandKit } from '../command-kit.js';

/**
 * Open the mesh's `<data_dir>/mesh.db` with the telegram track migrated. The commands work on the
 * file directly, with or without a running host: the channel reads pairings from the same file on
 * every message (SQLite WAL lets both write), so a code made here works at once.
 */
async function openTelegramStore(configFile: string) {
  // Loaded here, not at the top: grammY and marked stay out of every other command's start-up.
  const { TELEGRAM_FEATURE, TELEGRAM_MIGRATIONS, TelegramPairing, TelegramUsers } = await import(
    '@openlegion/channels'
  );
  const loaded = await loadMeshConfig(configFile);
  const db = openDatabase(path.join(loaded.dataDir, 'mesh.db'));
  migrate(db, [{ feature: TELEGRAM_FEATURE, steps: TELEGRAM_MIGRATIONS }]);
  const users = new TelegramUsers(db);
  return { loaded, db, users, pairing: new TelegramPairing(db, users, systemClock) };
}

const when = (ms: number) => new Date(ms).toISOString().replace(/\.\d{3}Z$/, 'Z');

/** `openlegion telegram pair|status|revoke`: who may talk to the mesh's Telegram bot. */
export function registerTelegramCommands(program: Command, kit: CommandKit): void {
  const telegram = program.command('telegram').description('pair Telegram users with the mesh bot');
  telegram
    .command('pair')
    .description('make a pairing code (one hour, single use): send /pair CODE to the bot')
    .addOption(kit.configOption())
    .action((options: { config: string }) =>
      kit.run(async () => {
        const store = await openTelegramStore(options.config);
        try {
          const { code, expiresAt } = store.pairing.createCode();
          const owner = store.users.owner();
          kit.output.out(`pairing code: ${code} (until ${when(expiresAt)})\n`);
          kit.output.out(`send "/pair ${code}" to the bot in a private chat; `);
          kit.output.out(
            owner ? 'the user will be an allowed user\n' : 'the first to pair becomes the owner\n',
          );
          if (!store.loaded.config.channels.telegram?.enabled) {
            kit.output.out('note: channels.telegram.enabled is false in mesh.yaml; the bot is not running\n');
          }
          return 0;
        } finally {
          store.db.close();
        }
      })(),
    );
  telegram
    .command('status')
    .description('the owner, allowed users and pending codes')
    .addOption(kit.configOption())
    .option('--json', 'print JSON')
    .action((options: { config: string; json?: boolean }) =>
      kit.run(async () => {
        const store = await openTelegramStore(options.config);
        try {
          const status = {
            enabled: store.loaded.config.channels.telegram?.enabled ?? false,
            users: store.users.list().map(({ userId, role, name, pairedAt }) => ({
              user_id: userId,
              role,
              name,
              paired_at: when(pairedAt),
            })),
            pending_codes: store.pairing.pendingCount(),
          };
          if (options.json) {
            kit.output.out(`${JSON.stringify(status, null, 2)}\n`);
            return 0;
          }
          kit.output.out(`telegram: ${status.enabled ? 'enabled' : 'disabled'} in mesh.yaml\n`);
          if (status.users.length === 0)
            kit.output.out('no paired users (openlegion telegram pair makes a code)\n');
          for (const user of status.users) {
            kit.output.out(`${user.user_id}  ${user.role}  ${user.name || '-'}  paired ${user.paired_at}\n`);
          }
          kit.output.out(`pending pairing codes: ${status.pending_codes}\n`);
          return 0;
        } finally {
          store.db.close();
        }
      })(),
    );
  telegram
    .command('revoke')
    .description('remove a paired user (revoking the owner lets the next user to pair own the bot)')
    .argument('<user>', 'Telegram user id, as `telegram status` shows it')
    .addOption(kit.configOption())
    .action((user: string, options: { config: string }) =>
      kit.run(async () => {
        const userId = Number(user);
        const store = await openTelegramStore(options.config);
        try {
          if (!Number.isSafeInteger(userId) || !store.users.revoke(userId)) {
            throw new OpenLegionError('CHAN_USER_UNKNOWN', `no paired Telegram user ${user}`);
          }
          kit.output.out(`${userId}: no longer paired\n`);
          return 0;
        } finally {
          store.db.close();
        }
      })(),
    );
}
