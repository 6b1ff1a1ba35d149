import { describe, expect, it } from 'vitest';
import { parseCommand, toIncomingUpdate } from './incoming-update.js';

const bot = { id: 99, username: 'legion_bot' };
const user = { id: 7, is_bot: false, first_name: 'Ada', username: 'ada' };
const message = (chat: { id: number; type: string }, text: string, extra: Record<string, unknown> = {}) => ({
  update_id: 1,
  message: { message_id: 10, date: 0, chat, from: user, text, ...extra },
});
const group = { id: -5, type: 'supergroup' };

describe('toIncomingUpdate', () => {
  it('takes private text messages as they are', () => {
    expect(toIncomingUpdate(message({ id: 7, type: 'private' }, 'hello'), bot)).toEqual({
      kind: 'message',
      updateId: 1,
      chatId: 7,
      inGroup: false,
      messageId: 10,
      from: { id: 7, name: 'Ada @ada' },
      text: 'hello',
    });
  });

  it('takes group messages only when they mention the bot, reply to it or name it in a command', () => {
    expect(toIncomingUpdate(message(group, 'hello all'), bot).kind).toBe('ignored');
    expect(toIncomingUpdate(message(group, 'hey @Legion_Bot what now?'), bot)).toMatchObject({
      kind: 'message',
      text: 'hey what now?',
    });
    const reply = message(group, 'and this?', { reply_to_message: { from: { id: 99 } } });
    expect(toIncomingUpdate(reply, bot)).toMatchObject({ kind: 'message', text: 'and this?' });
    expect(toIncomingUpdate(message(group, '/help@legion_bot'), bot)).toMatchObject({ text: '/help' });
    expect(toIncomingUpdate(message(group, '/help'), bot).kind).toBe('ignored');
    expect(toIncomingUpdate(message(group, '/help@other_bot'), bot).kind).toBe('ignored');
  });

  it('ignores bots, channel posts, non-text messages and malformed updates', () => {
    const fromBot = {
      update_id: 2,
      message: {
        message_id: 1,
        chat: { id: 7, type: 'private' },
        from: { ...user, is_bot: true },
        text: 'x',
      },
    };
    expect(toIncomingUpdate(fromBot, bot).kind).toBe('ignored');
    expect(toIncomingUpdate(message({ id: -9, type: 'channel' }, 'post'), bot).kind).toBe('ignored');
    expect(
      toIncomingUpdate(
        { update_id: 3, message: { message_id: 1, chat: { id: 7, type: 'private' }, from: user } },
        bot,
      ).kind,
    ).toBe('ignored');
    expect(toIncomingUpdate({ nonsense: true }, bot)).toMatchObject({ kind: 'ignored', updateId: -1 });
  });

  it('reads a button press', () => {
    const press = {
      update_id: 4,
      callback_query: {
        id: 'cb1',
        from: user,
        data: 'use:writer',
        chat_instance: 'x',
        message: { message_id: 3, chat: { id: 7, type: 'private' } },
      },
    };
    expect(toIncomingUpdate(press, bot)).toEqual({
      kind: 'button',
      updateId: 4,
      callbackId: 'cb1',
      chatId: 7,
      from: { id: 7, name: 'Ada @ada' },
      data: 'use:writer',
    });
  });
});

describe('parseCommand', () => {
  it('splits a command from its arguments', () => {
    expect(parseCommand('/Use writer')).toEqual({ name: 'use', args: 'writer' });
    expect(parseCommand('/broadcast line one\nline two')).toEqual({
      name: 'broadcast',
      args: 'line one\nline two',
    });
    expect(parseCommand('not /a command')).toBeUndefined();
  });
});
