/** A person, as the channel keys and names them. */
export interface DiscordPerson {
  id: string;
  name: string;
}

/** A MESSAGE_CREATE or INTERACTION_CREATE, reduced to what the channel acts on. */
export type DiscordInbound =
  | {
      kind: 'message';
      /** The message id: the dedupe key of a replayed event. */
      id: string;
      channelId: string;
      inGuild: boolean;
      author: DiscordPerson;
      /** The content with the bot's mention taken out. */
      text: string;
      /** Whether the message mentions the bot. */
      mentioned: boolean;
    }
  | {
      kind: 'button';
      interactionId: string;
      interactionToken: string;
      channelId: string;
      user: DiscordPerson;
      customId: string;
      /** The content of the message the button is under. */
      messageContent: string;
    }
  | {
      kind: 'command';
      interactionId: string;
      interactionToken: string;
      channelId: string;
      inGuild: boolean;
      user: DiscordPerson;
      /** The slash command as the text command it stands for: `/use writer`. */
      text: string;
    }
  | { kind: 'ignored'; reason: string };

type Raw = Record<string, unknown>;
const record = (value: unknown): Raw | undefined =>
  typeof value === 'object' && value !== null ? (value as Raw) : undefined;
const string = (value: unknown): string | undefined => (typeof value === 'string' ? value : undefined);

function personOf(user: Raw | undefined): (DiscordPerson & { bot: boolean }) | undefined {
  const id = string(user?.id);
  if (!id) return undefined;
  const name = string(user?.global_name) ?? string(user?.username) ?? id;
  return { id, name, bot: user?.bot === true };
}

/** A MESSAGE_CREATE's data (the Gateway's JSON, not discord.js's structures: nothing cached is needed). */
export function toInboundMessage(data: unknown, botId: string): DiscordInbound {
  const message = record(data);
  const id = string(message?.id);
  const channelId = string(message?.channel_id);
  const author = personOf(record(message?.author));
  if (!id || !channelId || !author) return { kind: 'ignored', reason: 'malformed message' };
  if (author.bot) return { kind: 'ignored', reason: 'from a bot' };
  const content = string(message?.content) ?? '';
  const mentions = Array.isArray(message?.mentions) ? message.mentions : [];
  const mentionPattern = new RegExp(`<@!?${botId}>`, 'g');
  const mentioned = mentions.some((user) => record(user)?.id === botId) || mentionPattern.test(content);
  return {
    kind: 'message',
    id,
    channelId,
    inGuild: typeof message?.guild_id === 'string',
    author: { id: author.id, name: author.name },
    text: content.replace(mentionPattern, '').trim(),
    mentioned,
  };
}

/** An INTERACTION_CREATE's data: a button press (type 3) is acted on; the rest is ignored. */
export function toInboundInteraction(data: unknown): DiscordInbound {
  const interaction = record(data);
  const interactionId = string(interaction?.id);
  const interactionToken = string(interaction?.token);
  const channelId = string(interaction?.channel_id);
  const user = personOf(record(interaction?.user) ?? record(record(interaction?.member)?.user));
  const customId = string(record(interaction?.data)?.custom_id);
  if (interaction?.type === 2 && interactionId && interactionToken && channelId && user) {
    const data = record(interaction.data);
    const name = string(data?.name);
    if (!name) return { kind: 'ignored', reason: 'malformed command' };
    const options = Array.isArray(data?.options) ? data.options : [];
    const args = options.map((option) => String(record(option)?.value ?? '')).join(' ');
    return {
      kind: 'command',
      interactionId,
      interactionToken,
      channelId,
      inGuild: typeof interaction.guild_id === 'string',
      user: { id: user.id, name: user.name },
      text: `/${name}${args ? ` ${args}` : ''}`,
    };
  }
  if (interaction?.type !== 3)
    return { kind: 'ignored', reason: `interaction type ${String(interaction?.type)}` };
  if (!interactionId || !interactionToken || !channelId || !user || !customId)
    return { kind: 'ignored', reason: 'malformed interaction' };
  return {
    kind: 'button',
    interactionId,
    interactionToken,
    channelId,
    user: { id: user.id, name: user.name },
    customId,
    messageContent: string(record(interaction?.message)?.content) ?? '',
  };
}

/** `/name args` → its parts (names are lower-cased); undefined for a plain message. */
export function parseCommand(text: string): { name: string; args: string } | undefined {
  const match = /^\/([A-Za-z][\w-]{0,31})(?:\s+([\s\S]*))?$/.exec(text.trim());
  if (!match?.[1]) return undefined;
  return { name: match[1].toLowerCase(), args: (match[2] ?? '').trim() };
}
