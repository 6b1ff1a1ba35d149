import type { FakeDiscordBotMessage, FakeDiscordUser } from './discord-types.js';

/** Discord refuses a message longer than this (characters of `content`). */
export const DISCORD_MESSAGE_LIMIT = 2000;

/** A user as Discord's API shows one. */
export function userObject(user: FakeDiscordUser) {
  return {
    id: user.id,
    username: user.username,
    global_name: user.global_name ?? user.username,
    discriminator: '0',
    avatar: null,
    ...(user.bot ? { bot: true } : {}),
  };
}

/** A message as Discord's API and Gateway show one. */
export function messageObject(fields: {
  id: string;
  channelId: string;
  guildId?: string;
  author: FakeDiscordUser;
  content: string;
  mentions?: FakeDiscordUser[];
  components?: unknown[];
}) {
  return {
    id: fields.id,
    channel_id: fields.channelId,
    ...(fields.guildId ? { guild_id: fields.guildId } : {}),
    author: userObject(fields.author),
    content: fields.content,
    timestamp: new Date().toISOString(),
    edited_timestamp: null,
    tts: false,
    mention_everyone: false,
    mentions: (fields.mentions ?? []).map(userObject),
    mention_roles: [],
    attachments: [],
    embeds: [],
    components: fields.components ?? [],
    pinned: false,
    type: 0,
  };
}

/** The fields every interaction carries; `context` 1 is BOT_DM, 0 GUILD. */
function interactionBase(id: string, applicationId: string, type: number, inDm: boolean) {
  return {
    id,
    application_id: applicationId,
    type,
    token: `interaction-token-${id}`,
    version: 1,
    locale: 'en-US',
    app_permissions: '0',
    entitlements: [],
    context: inDm ? 1 : 0,
    attachment_size_limit: 10_485_760,
  };
}

/** INTERACTION_CREATE for a person pressing a button (type 3, component 2) on the bot's message. */
export function buttonInteraction(fields: {
  id: string;
  applicationId: string;
  bot: FakeDiscordUser;
  from: FakeDiscordUser;
  message: FakeDiscordBotMessage;
  customId: string;
  inDm: boolean;
}) {
  const { id, applicationId, bot, from, message, customId, inDm } = fields;
  return {
    ...interactionBase(id, applicationId, 3, inDm),
    channel_id: message.channel_id,
    ...(inDm ? { user: userObject(from) } : { member: { user: userObject(from), roles: [] } }),
    message: messageObject({
      id: message.id,
      channelId: message.channel_id,
      author: bot,
      content: message.content,
      components: message.components,
    }),
    data: { custom_id: customId, component_type: 2 },
    authorizing_integration_owners: inDm ? { '1': from.id } : { '0': '0' },
  };
}

/** INTERACTION_CREATE for a slash command (type 2) with string options, in a DM when no guild. */
export function slashCommandInteraction(fields: {
  id: string;
  applicationId: string;
  from: FakeDiscordUser;
  place: { channelId: string; guildId?: string };
  name: string;
  options: Record<string, string>;
  commandId: string;
}) {
  const { id, applicationId, from, place, name, options, commandId } = fields;
  const inDm = place.guildId === undefined;
  return {
    ...interactionBase(id, applicationId, 2, inDm),
    channel_id: place.channelId,
    ...(inDm
      ? { user: userObject(from) }
      : { guild_id: place.guildId, member: { user: userObject(from), roles: [] } }),
    data: {
      id: commandId,
      name,
      type: 1,
      options: Object.entries(options).map(([option, value]) => ({ name: option, type: 3, value })),
    },
    authorizing_integration_owners: inDm ? { '1': from.id } : { '0': place.guildId },
  };
}

/** Discord's 400 for a message with no content or too much. */
export function invalidContent(content: string) {
  return {
    message: 'Invalid Form Body',
    code: 50035,
    errors: {
      content: {
        _errors: [
          content === ''
            ? { code: 'BASE_TYPE_REQUIRED', message: 'This field is required' }
            : {
                code: 'BASE_TYPE_MAX_LENGTH',
                message: `Must be ${DISCORD_MESSAGE_LIMIT} or fewer in length.`,
              },
        ],
      },
    },
  };
}
