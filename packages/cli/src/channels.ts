import type { ChannelRegistry, DiscordChannel, SlackChannel, TelegramChannel } from '@openlegion/channels';
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
  const started = [
    await startTelegram(host, loaded, logger, say, registry),
    await startDiscord(host, loaded, logger, say, registry),
    await startSlack(host, loaded, logger, say, registry),
  ];
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
  let channel: TelegramChannel | undefined;
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
    await reportNotStarted('telegram', error, log, say, channel);
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

/**
 * Start Slack (Socket Mode) when `channels.slack` is enabled with both tokens. A token Slack
 * refuses or a missing scope is reported in one line naming what to fix; the mesh runs without it.
 */
async function startSlack(
  host: MeshHost,
  loaded: LoadedMeshConfig,
  logger: Logger,
  say: (text: string) => void,
  registry: ChannelRegistry,
): Promise<StopChannels | undefined> {
  const slack = loaded.config.channels.slack;
  // The config refuses an enabled channel without its tokens; this only narrows the types.
  if (!slack?.enabled || !slack.bot_token || !slack.app_token) return undefined;
  const log = logger.child({ channel: 'slack' });
  // Bolt itself is imported by SlackChannel.start, only when Slack is on.
  const { SLACK_FEATURE, SLACK_MIGRATIONS, SlackChannel } = await import('@openlegion/channels');
  let channel: SlackChannel | undefined;
  try {
    channel = new SlackChannel({
      botToken: host.resolveSecret(slack.bot_token),
      appToken: host.resolveSecret(slack.app_token),
      db: host.featureDatabase(SLACK_FEATURE, SLACK_MIGRATIONS),
      logger: log,
      allowedChannels: [...slack.allowed_channels],
      whenBusy: slack.when_busy,
      mirror: slack.mirror,
      registry,
      ...(slack.default_agent ? { defaultAgent: slack.default_agent } : {}),
      ...(slack.api_root ? { apiRoot: slack.api_root } : {}),
    });
    await channel.start(host.channelMesh);
  } catch (error) {
    await reportNotStarted('slack', error, log, say, channel);
    return undefined;
  }
  say(`  ✓ slack ${channel.botName ? `@${channel.botName}` : 'bot'} ready (socket mode)\n`);
  const code = channel.pendingPairingCode();
  if (code) {
    const minutes = Math.round((code.expiresAt - Date.now()) / 60_000);
    say(
      `    no owner yet: send "!pair ${code.code}" to the bot in a Slack DM within ${minutes} minutes (the first to pair owns it)\n`,
    );
  }
  return () => channel.stop();
}

/** Discord beside Telegram: the same shape (a failure is one line, the mesh runs on). */
async function startDiscord(
  host: MeshHost,
  loaded: LoadedMeshConfig,
  logger: Logger,
  say: (text: string) => void,
  registry: ChannelRegistry,
): Promise<StopChannels | undefined> {
  const discord = loaded.config.channels.discord;
  if (!discord?.enabled || !discord.token) return undefined;
  const log = logger.child({ channel: 'discord' });
  // Loaded only when the channel is on: discord.js is large.
  const { DISCORD_FEATURE, DISCORD_MIGRATIONS, DiscordChannel } = await import('@openlegion/channels');
  let channel: DiscordChannel | undefined;
  try {
    channel = new DiscordChannel({
      token: host.resolveSecret(discord.token),
      db: host.featureDatabase(DISCORD_FEATURE, DISCORD_MIGRATIONS),
      logger: log,
      ...(discord.default_agent ? { defaultAgent: discord.default_agent } : {}),
      allowedChannels: discord.allowed_channels,
      whenBusy: discord.when_busy,
      mirror: discord.mirror,
      registry,
      ...(discord.api_root ? { apiRoot: discord.api_root } : {}),
      ...(discord.gateway_url ? { gatewayUrl: discord.gateway_url } : {}),
    });
    await channel.start(host.channelMesh);
  } catch (error) {
    await reportNotStarted('discord', error, log, say, channel);
    return undefined;
  }
  const bot = channel.bot ? `@${channel.bot.username}` : 'the bot';
  say(`  ✓ discord ${bot} ready\n`);
  const code = channel.pendingPairingCode();
  if (code) {
    const minutes = Math.round((code.expiresAt - Date.now()) / 60_000);
    say(
      `    no owner yet: send "/pair ${code.code}" to ${bot} in a Discord DM within ${minutes} minutes (the first to pair owns it)\n`,
    );
  }
  return () => channel.stop();
}

/**
 * A channel that did not start is one line and a log entry; the mesh runs without it. Any error,
 * not only the ones we name: a bug in one channel must not take down a fleet that is already up.
 * What the channel started before failing is stopped.
 */
async function reportNotStarted(
  name: string,
  error: unknown,
  log: Logger,
  say: (text: string) => void,
  channel: { stop(): Promise<void> } | undefined,
): Promise<void> {
  const code = isOpenLegionError(error) ? error.code : 'INTERNAL';
  const message = error instanceof Error ? error.message : String(error);
  log.error({ err: error, code }, `${name} channel not started`);
  say(`  ✗ ${name} not started (${code}): ${message}; the mesh runs without it\n`);
  await channel
    ?.stop()
    .catch((stopError: unknown) => log.warn({ err: stopError }, `stopping ${name} failed`));
}
