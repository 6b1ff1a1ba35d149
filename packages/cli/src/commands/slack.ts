import path from 'node:path';
import { loadMeshConfig } from '@openlegion/host/config';
import { systemClock } from '@openlegion/infra/clock';
import { migrate, openDatabase } from '@openlegion/infra/sqlite';
import { OpenLegionError } from '@openlegion/protocol';
import type { Command } from 'commander';
import type { CommandKit } from '../command-kit.js';

/**
 * Open `<data_dir>/mesh.db` with the slack and shared channel tracks. Like `openlegion telegram`,
 * the commands work on the file directly, with or without a running host (SQLite WAL).
 */
async function openSlackStore(configFile: string) {
  // Loaded here, not at the top: Bolt stays out of every other command's start-up.
  const {
    SLACK_FEATURE,
    SLACK_MIGRATIONS,
    CHANNELS_FEATURE,
    CHANNELS_MIGRATIONS,
    ChannelUsers,
    ChannelPairing,
    DeliverySpool,
    sharedPairingTables,
  } = await import('@openlegion/channels');
  const loaded = await loadMeshConfig(configFile);
  const db = openDatabase(path.join(loaded.dataDir, 'mesh.db'));
  migrate(db, [
    { feature: CHANNELS_FEATURE, steps: CHANNELS_MIGRATIONS },
    { feature: SLACK_FEATURE, steps: SLACK_MIGRATIONS },
  ]);
  const users = new ChannelUsers(db, 'slack');
  return {
    loaded,
    db,
    users,
    pairing: new ChannelPairing(db, users, systemClock, sharedPairingTables('slack')),
    spool: new DeliverySpool(db, systemClock),
  };
}

const when = (ms: number) => new Date(ms).toISOString().replace(/\.\d{3}Z$/, 'Z');

/** `openlegion slack pair|status|revoke`: who may talk to the mesh's Slack bot, and its deliveries. */
export function registerSlackCommands(program: Command, kit: CommandKit): void {
  const slack = program.command('slack').description('pair Slack people with the mesh bot');
  slack
    .command('pair')
    .description('make a pairing code (one hour, single use): send !pair CODE to the bot in a DM')
    .addOption(kit.configOption())
    .action((options: { config: string }) =>
      kit.run(async () => {
        const store = await openSlackStore(options.config);
        try {
          const { code, expiresAt } = store.pairing.createCode();
          kit.output.out(`pairing code: ${code} (until ${when(expiresAt)})\n`);
          kit.output.out(`send "!pair ${code}" to the bot in a Slack DM; `);
          kit.output.out(
            store.users.owner() ? 'they will be an allowed user\n' : 'the first to pair becomes the owner\n',
          );
          if (!store.loaded.config.channels.slack?.enabled)
            kit.output.out('note: channels.slack.enabled is false in mesh.yaml; the bot is not running\n');
          return 0;
        } finally {
          store.db.close();
        }
      })(),
    );
  slack
    .command('status')
    .description('the owner, allowed people, pending codes and where deliveries stand')
    .addOption(kit.configOption())
    .option('--json', 'print JSON')
    .action((options: { config: string; json?: boolean }) =>
      kit.run(async () => {
        const store = await openSlackStore(options.config);
        try {
          const status = {
            enabled: store.loaded.config.channels.slack?.enabled ?? false,
            users: store.users.list().map(({ userId, role, pairedAt }) => ({
              user_id: userId,
              role,
              paired_at: when(pairedAt),
            })),
            pending_codes: store.pairing.pendingCount(),
            deliveries: store.spool.counts('slack'),
          };
          if (options.json) {
            kit.output.out(`${JSON.stringify(status, null, 2)}\n`);
            return 0;
          }
          kit.output.out(`slack: ${status.enabled ? 'enabled' : 'disabled'} in mesh.yaml\n`);
          if (status.users.length === 0)
            kit.output.out('nobody paired (openlegion slack pair makes a code)\n');
          for (const user of status.users)
            kit.output.out(`${user.user_id}  ${user.role}  paired ${user.paired_at}\n`);
          kit.output.out(`pending pairing codes: ${status.pending_codes}\n`);
          const { accepted, running, answered, dead } = status.deliveries;
          kit.output.out(
            `messages: ${answered} answered, ${accepted + running} in progress, ${dead} dead letters\n`,
          );
          return 0;
        } finally {
          store.db.close();
        }
      })(),
    );
  slack
    .command('revoke')
    .description('remove a paired person (revoking the owner lets the next to pair own the bot)')
    .argument('<user>', 'Slack user id (U…), as `slack status` shows it')
    .addOption(kit.configOption())
    .action((user: string, options: { config: string }) =>
      kit.run(async () => {
        const store = await openSlackStore(options.config);
        try {
          if (!store.users.revoke(user))
            throw new OpenLegionError('CHAN_USER_UNKNOWN', `no paired Slack user ${user}`);
          kit.output.out(`${user}: no longer paired\n`);
          return 0;
        } finally {
          store.db.close();
        }
      })(),
    );
}
