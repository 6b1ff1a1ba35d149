import { OpenLegionError } from '@openlegion/protocol';
import { Client, Events, GatewayIntentBits, SimpleShardingStrategy } from 'discord.js';
import type { Logger } from 'pino';

/**
 * The intents the channel asks for. MESSAGE_CONTENT is privileged: without its switch in the
 * developer portal Discord closes the gateway with 4014, reported as CHAN_INTENT_MISSING.
 */
export const DISCORD_INTENTS = [
  GatewayIntentBits.Guilds,
  GatewayIntentBits.GuildMessages,
  GatewayIntentBits.DirectMessages,
  GatewayIntentBits.MessageContent,
];

/** How long `connect` waits for READY before it calls Discord unreachable. */
export const DISCORD_READY_TIMEOUT_MS = 30_000;

/** Gateway close codes the channel explains (https://discord.com/developers/docs/topics/opcodes-and-status-codes). */
const CLOSE_AUTHENTICATION_FAILED = 4004;
const CLOSE_DISALLOWED_INTENTS = 4014;

export interface DiscordClientOptions {
  /** REST base (`…/api`); Discord's when absent. */
  apiRoot?: string;
  /** Gateway URL; the one GET /gateway/bot names when absent. */
  gatewayUrl?: string;
  logger: Logger;
}

/** A discord.js client pointed at `apiRoot` and `gatewayUrl` (a test's fake, or Discord). */
export function createDiscordClient(options: DiscordClientOptions): Client {
  const { gatewayUrl } = options;
  return new Client({
    intents: DISCORD_INTENTS,
    rest: { ...(options.apiRoot ? { api: options.apiRoot } : {}), retries: 3, timeout: 15_000 },
    ws: {
      buildStrategy: (manager) => {
        if (gatewayUrl) {
          // discord.js takes the gateway URL from GET /gateway/bot; a configured one wins over it.
          const fetchInformation = manager.fetchGatewayInformation.bind(manager);
          manager.fetchGatewayInformation = async (force?: boolean) => ({
            ...(await fetchInformation(force)),
            url: gatewayUrl,
          });
        }
        return new SimpleShardingStrategy(manager);
      },
    },
  });
}

/** The error a failed login stands for: a rejected token, a missing intent, or Discord out of reach. */
export function loginError(error: unknown): OpenLegionError {
  const code = (error as { code?: unknown; status?: unknown } | undefined)?.code;
  const status = (error as { status?: unknown } | undefined)?.status;
  if (code === 'TokenInvalid' || status === 401 || code === CLOSE_AUTHENTICATION_FAILED)
    return new OpenLegionError(
      'CHAN_TOKEN_REJECTED',
      'Discord rejected the bot token (401 Unauthorized); check channels.discord.token (Bot → Reset Token in the developer portal)',
      { details: { channel: 'discord' } },
    );
  if (code === CLOSE_DISALLOWED_INTENTS)
    return new OpenLegionError(
      'CHAN_INTENT_MISSING',
      'Discord refused the MESSAGE_CONTENT intent (gateway close 4014): switch on "Message Content Intent" under Bot → Privileged Gateway Intents in the developer portal',
      { details: { channel: 'discord', intent: 'MESSAGE_CONTENT', close_code: CLOSE_DISALLOWED_INTENTS } },
    );
  return new OpenLegionError(
    'CHAN_UNREACHABLE',
    `Discord could not be reached: ${error instanceof Error ? error.message : String(error)}`,
    { details: { channel: 'discord' } },
  );
}

/**
 * Log in and wait for READY. Rejects with {@link loginError}'s errors: discord.js rejects a bad
 * token itself; a gateway closed for good (4004, 4014) only shows as a shard disconnect.
 */
export async function connectDiscordClient(
  client: Client,
  token: string,
  timeoutMs = DISCORD_READY_TIMEOUT_MS,
): Promise<void> {
  let cleanup = () => {};
  const refused = new Promise<never>((_resolve, reject) => {
    const onDisconnect = (event: { code: number }) => reject({ code: event.code });
    const timer = setTimeout(() => reject(new Error(`no READY within ${timeoutMs} ms`)), timeoutMs);
    client.on(Events.ShardDisconnect, onDisconnect);
    cleanup = () => {
      clearTimeout(timer);
      client.off(Events.ShardDisconnect, onDisconnect);
    };
  });
  const ready = new Promise<void>((resolve) => client.once(Events.ClientReady, () => resolve()));
  try {
    await Promise.race([client.login(token).then(() => ready), refused]);
  } catch (error) {
    await client.destroy().catch(() => {});
    throw loginError(error);
  } finally {
    cleanup();
  }
}
