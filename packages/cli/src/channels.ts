import type { ChannelRegistry, TelegramChannel } from '@openlegion/channels';
import type { LoadedMeshConfig } from '@openlegion/host/config';
import type { MeshHost } from '@openlegion/host/mesh';
import { isOpenLegionError } from '@openlegion/protocol';
import type { Logger } from 'pino';

/** Stops what {@link startChannels} started (before the host stops: channels use its database). */
export type StopChannels = () => Promise<void>;

/**
 * Start the chat channels mesh.yaml enables, beside a host that is ready. A channel that cannot
 * start (a token Telegram rejects, a missing secret, Telegram unreachable) is reported in one line
 * and left out: the rest of the mesh runs. While nobody owns the bot, its pairing code is printed.
 *
 * @example
 * const stopChannels = await startChannels(host, loaded, logger, say);
 * // … at shutdown, first:
 * await stopChannels();
 */
export async function startChannels(
  host: MeshHost,
  loaded: LoadedMeshConfig,
  logger: Logger,
  say: (text: string) => void,
): Promise<StopChannels> {
  const { channels } = loaded.config;
  if (!Object.values(channels).some((channel) => channel?.enabled)) return async () => {};
  // Loaded only when a channel is on: grammy and marked cost ~95 ms of start-up otherwise.
  const { ChannelRegistry } = await import('@openlegion/channels');
  // Every channel of this process registers here: mirroring (`mirror: true`) reaches the others' owners.
  const registry = new ChannelRegistry(logger);
  const started = [await startTelegram(host, loaded, logger, say, registry)];
  return async () => {
    await Promise.all(started.map((stop) => stop?.()));
  };
}

/** Telegram, when mesh.yaml enables it; the function that stops it, or undefined. */
async function startTelegram(
  host: MeshHost,
  loaded: LoadedMeshConfig,
  logger: Logger,
  say: (text: string) => void,
  registry: ChannelRegistry,
): Promise<StopChannels | undefined> {
  const telegram = loaded.config.channels.telegram;
  if (!telegram?.enabled || !telegram.token) return undefined;
  const log = logger.child({ channel: 'telegram' });
  const { TELEGRAM_FEATURE, TELEGRAM_MIGRATIONS, TelegramChannel } = await import('@openlegion/channels');
  let channel: TelegramChannel;
  try {
    const apiRoot = telegram.api_root;
    channel = new TelegramChannel({
      token: host.resolveSecret(telegram.token),
      db: host.featureDatabase(TELEGRAM_FEATURE, TELEGRAM_MIGRATIONS),
      logger: log,
      ...(telegram.default_agent ? { defaultAgent: telegram.default_agent } : {}),
      allowGroups: telegram.allow_groups,
      whenBusy: telegram.when_busy,
      mirror: telegram.mirror,
      registry,
      ...(apiRoot ? { apiRoot } : {}),
      ...(telegram.webhook
        ? {
            webhook: {
              url: telegram.webhook.url,
              secretToken: host.resolveSecret(telegram.webhook.secret_token),
              listen: { host: telegram.webhook.host, port: telegram.webhook.port },
            },
          }
        : {}),
    });
    await channel.start(host.channelMesh);
  } catch (error) {
    if (!isOpenLegionError(error)) throw error;
    log.error({ err: error, code: error.code }, 'telegram channel not started');
    say(`  ✗ telegram not started (${error.code}): ${error.message}; the mesh runs without it\n`);
    return undefined;
  }
  const bot = channel.bot ? `@${channel.bot.username}` : 'the bot';
  say(`  ✓ telegram ${bot} ready\n`);
  const code = channel.pendingPairingCode();
  if (code) {
    const minutes = Math.round((code.expiresAt - Date.now()) / 60_000);
    say(
      `    no owner yet: send "/pair ${code.code}" to ${bot} within ${minutes} minutes (the first to pair owns it)\n`,
    );
  }
  return () => channel.stop();
}
