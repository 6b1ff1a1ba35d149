import { describe, expect, it } from 'vitest';
import { parseTextCommand, toSlackInbound } from './slack-inbound.js';

const BOT = 'UBOT0001';

describe('toSlackInbound', () => {
  it('takes a DM without a mention, and a mention with the mention taken out, answered in its thread', () => {
    expect(
      toSlackInbound(
        { type: 'message', channel_type: 'im', channel: 'D1', user: 'U1', text: ' hi ', ts: '1.1' },
        BOT,
      ),
    ).toEqual({ kind: 'message', via: 'dm', channel: 'D1', user: 'U1', text: 'hi', ts: '1.1' });
    expect(
      toSlackInbound(
        { type: 'app_mention', channel: 'C1', user: 'U1', text: `<@${BOT}> sum up`, ts: '2.2' },
        BOT,
      ),
    ).toEqual({
      kind: 'message',
      via: 'mention',
      channel: 'C1',
      user: 'U1',
      text: 'sum up',
      ts: '2.2',
      threadTs: '2.2',
    });
    expect(
      toSlackInbound(
        {
          type: 'app_mention',
          channel: 'C1',
          user: 'U1',
          text: `<@${BOT}|bot> go`,
          ts: '3.3',
          thread_ts: '1.0',
        },
        BOT,
      ),
    ).toMatchObject({ text: 'go', threadTs: '1.0' });
  });

  it('ignores channel messages without a mention, edits, bots and the bot itself', () => {
    const base = { channel: 'C1', user: 'U1', text: 'x', ts: '1.1' };
    expect(toSlackInbound({ ...base, type: 'message', channel_type: 'channel' }, BOT)).toEqual({
      kind: 'ignored',
      reason: 'channel message without a mention',
    });
    expect(
      toSlackInbound({ ...base, type: 'message', channel_type: 'im', subtype: 'message_changed' }, BOT),
    ).toMatchObject({
      kind: 'ignored',
    });
    expect(toSlackInbound({ ...base, type: 'message', channel_type: 'im', bot_id: 'B9' }, BOT)).toMatchObject(
      {
        kind: 'ignored',
        reason: 'from a bot',
      },
    );
    expect(toSlackInbound({ ...base, type: 'message', channel_type: 'im', user: BOT }, BOT)).toMatchObject({
      kind: 'ignored',
    });
  });
});

describe('parseTextCommand', () => {
  it('reads !name and /name with their arguments, and nothing else', () => {
    expect(parseTextCommand('!use writer')).toEqual({ name: 'use', args: 'writer' });
    expect(parseTextCommand(' /Broadcast  hello all ')).toEqual({ name: 'broadcast', args: 'hello all' });
    expect(parseTextCommand('!agents')).toEqual({ name: 'agents', args: '' });
    expect(parseTextCommand('use writer')).toBeUndefined();
  });
});
