import { describe, expect, it } from 'vitest';
import { parseCommand, toInboundInteraction, toInboundMessage } from './discord-inbound.js';

const BOT = '1000';
const message = (fields: Record<string, unknown>) => ({
  id: '55',
  channel_id: '66',
  author: { id: '77', username: 'ada', global_name: 'Ada' },
  content: '',
  mentions: [],
  ...fields,
});

describe('toInboundMessage', () => {
  it('takes a DM as it is, and a server message with the mention taken out', () => {
    expect(toInboundMessage(message({ content: 'hello' }), BOT)).toEqual({
      kind: 'message',
      id: '55',
      channelId: '66',
      inGuild: false,
      author: { id: '77', name: 'Ada' },
      text: 'hello',
      mentioned: false,
    });
    expect(
      toInboundMessage(
        message({ guild_id: '9', content: '<@!1000> summarise', mentions: [{ id: BOT }] }),
        BOT,
      ),
    ).toMatchObject({ inGuild: true, text: 'summarise', mentioned: true });
    expect(toInboundMessage(message({ guild_id: '9', content: '<@1000>' }), BOT)).toMatchObject({
      text: '',
      mentioned: true,
    });
  });

  it('ignores bots (itself included) and malformed events', () => {
    expect(toInboundMessage(message({ author: { id: BOT, username: 'me', bot: true } }), BOT)).toEqual({
      kind: 'ignored',
      reason: 'from a bot',
    });
    expect(toInboundMessage({ id: 1 }, BOT)).toEqual({ kind: 'ignored', reason: 'malformed message' });
  });
});

describe('toInboundInteraction', () => {
  it('takes a button press from a DM (user) or a server (member.user); other interactions are ignored', () => {
    const press = { id: '1', token: 't', type: 3, channel_id: '66', data: { custom_id: 'ap:approve:x' } };
    expect(toInboundInteraction({ ...press, user: { id: '77', username: 'ada' } })).toMatchObject({
      kind: 'button',
      user: { id: '77', name: 'ada' },
      customId: 'ap:approve:x',
    });
    expect(toInboundInteraction({ ...press, member: { user: { id: '78', username: 'bob' } } })).toMatchObject(
      {
        user: { id: '78' },
      },
    );
    expect(toInboundInteraction({ ...press, type: 2 })).toEqual({
      kind: 'ignored',
      reason: 'interaction type 2',
    });
  });
});

describe('parseCommand', () => {
  it('splits a command from its arguments', () => {
    expect(parseCommand('/Use writer')).toEqual({ name: 'use', args: 'writer' });
    expect(parseCommand('/pair  abcd-2345 ')).toEqual({ name: 'pair', args: 'abcd-2345' });
    expect(parseCommand('not /a command')).toBeUndefined();
  });
});
