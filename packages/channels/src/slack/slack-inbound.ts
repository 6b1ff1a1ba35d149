/** A Slack event the channel acts on, or why it is ignored. */
export type SlackInbound =
  | {
      kind: 'message';
      /** `dm` needs no mention; `mention` came from a channel (app_mention). */
      via: 'dm' | 'mention';
      channel: string;
      user: string;
      text: string;
      ts: string;
      /** The thread the answer goes in (a mention's own thread, or the message it starts). */
      threadTs?: string;
    }
  | { kind: 'ignored'; reason: string };

function field(event: Record<string, unknown>, name: string): string | undefined {
  const value = event[name];
  return typeof value === 'string' ? value : undefined;
}

/**
 * Read an Events API event: a DM (`message`, channel_type im, no subtype, not from a bot) or a
 * mention (`app_mention`, the `<@BOT>` taken out). Everything else, a channel's plain messages
 * included, is ignored: the bot answers in channels only when mentioned.
 */
export function toSlackInbound(event: Record<string, unknown>, botUserId: string): SlackInbound {
  const type = field(event, 'type');
  const channel = field(event, 'channel');
  const user = field(event, 'user');
  const ts = field(event, 'ts');
  const text = field(event, 'text') ?? '';
  if (!channel || !ts) return { kind: 'ignored', reason: 'no channel or ts' };
  if (event.bot_id !== undefined || user === botUserId) return { kind: 'ignored', reason: 'from a bot' };
  if (!user) return { kind: 'ignored', reason: 'no user' };
  if (type === 'message') {
    if (event.subtype !== undefined) return { kind: 'ignored', reason: `subtype ${String(event.subtype)}` };
    if (field(event, 'channel_type') !== 'im')
      return { kind: 'ignored', reason: 'channel message without a mention' };
    return { kind: 'message', via: 'dm', channel, user, text: text.trim(), ts };
  }
  if (type === 'app_mention') {
    const mention = new RegExp(`<@${botUserId}(\\|[^>]*)?>`, 'g');
    return {
      kind: 'message',
      via: 'mention',
      channel,
      user,
      text: text.replace(mention, '').trim(),
      ts,
      threadTs: field(event, 'thread_ts') ?? ts,
    };
  }
  return { kind: 'ignored', reason: `event ${type}` };
}

/**
 * A text command: `/use writer`, or `!use writer` (Slack's composer takes a leading `/` for its own
 * slash commands; `!` or a space before the `/` gets past it).
 */
export function parseTextCommand(text: string): { name: string; args: string } | undefined {
  const match = /^\s*[/!]([a-z_]+)(?:\s+([\s\S]*))?$/i.exec(text);
  if (!match?.[1]) return undefined;
  return { name: match[1].toLowerCase(), args: (match[2] ?? '').trim() };
}
