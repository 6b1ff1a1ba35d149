import path from 'node:path';
import { loadMeshConfig } from '@openlegion/host/config';
import { systemClock } from '@openlegion/infra/clock';
import { migrate, openDatabase } from '@openlegion/infra/sqlite';
import { OpenLegionError } from '@openlegion/protocol';
import type { Command } from 'commander';
import type { CommandKit } from '../command-kit.js';

/**
 * Open the mesh's `<data_dir>/mesh.db` with the shared channel tracks migrated (the delivery
 * spool brings them). Works with or without a running host, as `openlegion telegram` does: the
 * channel reads pairings from the same file on every message.
 */
async function openDiscordStore(configFile: string) {
  // Loaded here, not at the top: discord.js stays out of every other command's start-up.
  const {
    ChannelPairing,
    ChannelUsers,
    DeliverySpool,
    DISCORD_FEATURE,
    DISCORD_MIGRATIONS,
    ChannelStatusBoard,
    sharedPairingTables,
  } = await import('@openlegion/channels');
  const loaded = await loadMeshConfig(configFile);
  const db = openDatabase(path.join(loaded.dataDir, 'mesh.db'));
  migrate(db, [{ feature: DISCORD_FEATURE, steps: DISCORD_MIGRATIONS }]);
  const spool = new DeliverySpool(db, systemClock);
  const users = new ChannelUsers(db, 'discord');
  const pairing = new ChannelPairing(db, users, systemClock, sharedPairingTables('discord'));
  const connection = new ChannelStatusBoard(db, systemClock).all().find((line) => line.channel === 'discord');
  return { loaded, db, users, pairing, spool, connection };
}

const when = (ms: number) => new Date(ms).toISOString().replace(/\.\d{3}Z$/, 'Z');

/** `openlegion discord pair|status|revoke`: who may talk to the mesh's Discord bot. */
export function registerDiscordCommands(program: Command, kit: CommandKit): void {
  const discord = program.command('discord').description('pair Discord users with the mesh bot');
  discord
    .command('pair')
    .description('make a pairing code (one hour, single use): send /pair CODE to the bot in a DM')
    .addOption(kit.configOption())
    .action((options: { config: string }) =>
      kit.run(async () => {
        const store = await openDiscordStore(options.config);
        try {
          const { code, expiresAt } = store.pairing.createCode();
          kit.output.out(`pairing code: ${code} (until ${when(expiresAt)})\n`);
          kit.output.out(`send "/pair ${code}" to the bot in a Discord DM; `);
          kit.output.out(
            store.users.owner()
              ? 'the user will be an allowed user\n'
              : 'the first to pair becomes the owner\n',
          );
          if (!store.loaded.config.channels.discord?.enabled)
            kit.output.out('note: channels.discord.enabled is false in mesh.yaml; the bot is not running\n');
          return 0;
        } finally {
          store.db.close();
        }
      })(),
    );
  discord
    .command('status')
    .description('the owner, allowed users, pending codes and where deliveries stand')
    .addOption(kit.configOption())
    .option('--json', 'print JSON')
    .action((options: { config: string; json?: boolean }) =>
      kit.run(async () => {
        const store = await openDiscordStore(options.config);
        try {
          const counts = store.spool.counts('discord');
          const status = {
            enabled: store.loaded.config.channels.discord?.enabled ?? false,
            /** The running channel's last word on its connection (a failed start included). */
            connection: store.connection
              ? {
                  state: store.connection.state,
                  ...(store.connection.detail ? { detail: store.connection.detail } : {}),
                  since: when(store.connection.updatedAt),
                }
              : null,
            users: store.users.list().map(({ userId, role, name, pairedAt }) => ({
              user_id: userId,
              role,
              name,
              paired_at: when(pairedAt),
            })),
            pending_codes: store.pairing.pendingCount(),
            deliveries: {
              answered: counts.answered,
              in_progress: counts.accepted + counts.running,
              dead_letters: counts.dead,
            },
          };
          if (options.json) {
            kit.output.out(`${JSON.stringify(status, null, 2)}\n`);
            return 0;
          }
          kit.output.out(`discord: ${status.enabled ? 'enabled' : 'disabled'} in mesh.yaml\n`);
          const connection = status.connection;
          if (connection)
            kit.output.out(
              `connection: ${connection.state} since ${connection.since}${connection.detail ? `: ${connection.detail}` : ''}\n`,
            );
          if (status.users.length === 0)
            kit.output.out('no paired users (openlegion discord pair makes a code)\n');
          for (const user of status.users)
            kit.output.out(`${user.user_id}  ${user.role}  ${user.name || '-'}  paired ${user.paired_at}\n`);
          kit.output.out(`pending pairing codes: ${status.pending_codes}\n`);
          const { answered, in_progress, dead_letters } = status.deliveries;
          kit.output.out(
            `deliveries: ${answered} answered, ${in_progress} in progress, ${dead_letters} dead letters\n`,
          );
          return 0;
        } finally {
          store.db.close();
        }
      })(),
    );
  discord
    .command('revoke')
    .description('remove a paired user (revoking the owner lets the next user to pair own the bot)')
    .argument('<user>', 'Discord user id, as `discord status` shows it')
    .addOption(kit.configOption())
    .action((user: string, options: { config: string }) =>
      kit.run(async () => {
        const store = await openDiscordStore(options.config);
        try {
          if (!store.users.revoke(user))
            throw new OpenLegionError('CHAN_USER_UNKNOWN', `no paired Discord user ${user}`);
          kit.output.out(`${user}: no longer paired\n`);
          return 0;
        } finally {
          store.db.close();
        }
      })(),
    );
}
