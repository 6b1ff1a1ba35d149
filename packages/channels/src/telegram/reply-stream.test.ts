import { FakeClock } from '@openlegion/infra/clock';
import { OpenLegionError } from '@openlegion/protocol';
import { pino } from 'pino';
import { beforeEach, describe, expect, it } from 'vitest';
import { RecordingTelegramApi } from '../../test/recording-telegram-api.js';
import { EDIT_INTERVAL_MS, EditPacer } from './edit-pacer.js';
import { ReplyStream } from './reply-stream.js';
import { TELEGRAM_TEXT_LIMIT } from './split-reply.js';

const CHAT = 42;
let clock: FakeClock;
let api: RecordingTelegramApi;
let pacer: EditPacer;

const stream = (options: { header?: string; showUsage?: boolean } = {}) =>
  new ReplyStream({
    api,
    pacer,
    clock,
    logger: pino({ level: 'silent' }),
    chatId: CHAT,
    replyTo: 7,
    ...options,
  });

beforeEach(() => {
  clock = new FakeClock(1_000_000);
  api = new RecordingTelegramApi(clock);
  pacer = new EditPacer(clock);
});

describe('ReplyStream', () => {
  it('sends the first text at once and edits the same message, never faster than the interval', async () => {
    const reply = stream();
    reply.push({ type: 'text_delta', text: 'Hel' });
    await clock.advance(0);
    for (let index = 0; index < 30; index++) {
      reply.push({ type: 'text_delta', text: 'lo ' });
      await clock.advance(100);
    }
    const finished = reply.finish();
    await clock.advance(EDIT_INTERVAL_MS);
    await finished;
    const writes = api.calls;
    expect(writes[0]).toMatchObject({ method: 'sendMessage', text: 'Hel', options: { replyTo: 7 } });
    expect(writes.slice(1).every((call) => call.method === 'editMessageText' && call.messageId === 100)).toBe(
      true,
    );
    const gaps = writes.slice(1).map((call, index) => call.at - (writes[index]?.at ?? 0));
    expect(Math.min(...gaps)).toBeGreaterThanOrEqual(EDIT_INTERVAL_MS);
    // 3 s of streaming: the first send plus two paced edits, and the final edit.
    expect(writes.length).toBeLessThanOrEqual(4);
    expect(api.texts.get(100)).toBe(`Hel${'lo '.repeat(30).trim()}`);
  });

  it('writes the final text in full even when no delta was streamed', async () => {
    const reply = stream();
    reply.push({ type: 'done', conversation_id: 'c', text: 'The whole answer.' });
    const finished = reply.finish();
    await clock.advance(EDIT_INTERVAL_MS);
    await finished;
    expect(api.currentTexts(CHAT)).toEqual(['The whole answer.']);
  });

  it('splits a reply longer than a message into several messages at paragraph boundaries', async () => {
    const paragraph = (letter: string) => `${letter.repeat(1_500)}.`;
    const text = [paragraph('a'), paragraph('b'), paragraph('c'), paragraph('d'), paragraph('e')].join(
      '\n\n',
    );
    const reply = stream();
    reply.push({ type: 'text_delta', text });
    const finished = reply.finish();
    await clock.advance(10 * EDIT_INTERVAL_MS);
    await finished;
    const texts = api.currentTexts(CHAT);
    expect(texts.length).toBe(3);
    for (const part of texts) expect(part.length).toBeLessThanOrEqual(TELEGRAM_TEXT_LIMIT);
    expect(texts.join('\n\n')).toBe(text);
    expect(texts[0]).toBe([paragraph('a'), paragraph('b')].join('\n\n'));
  });

  it('shows tool calls and errors as short lines, escaped', async () => {
    const reply = stream();
    reply.push({ type: 'text_delta', text: 'Looking.' });
    reply.push({ type: 'tool_start', id: 't1', name: 'read_file', input: { path: 'notes<1>.md' } });
    reply.push({ type: 'tool_result', id: 't1', output: 'nope', is_error: true });
    reply.push({
      type: 'error',
      code: 'AGENT_LLM_FAILED',
      message: 'provider said <no> & left',
      retryable: true,
    });
    const finished = reply.finish();
    await clock.advance(EDIT_INTERVAL_MS);
    await finished;
    expect(api.currentTexts(CHAT)).toEqual([
      'Looking.\n\n⚙ read_file(notes&lt;1&gt;.md)\n\n⚠ read_file failed\n\n⚠ provider said &lt;no&gt; &amp; left',
    ]);
  });

  it('adds the model and tokens at the end in debug mode', async () => {
    const reply = stream({ showUsage: true });
    reply.push({ type: 'text_delta', text: 'hi' });
    reply.push({ type: 'usage', model: 'demo/echo', prompt_tokens: 12, completion_tokens: 3 });
    const finished = reply.finish();
    await clock.advance(EDIT_INTERVAL_MS);
    await finished;
    expect(api.currentTexts(CHAT)).toEqual(['hi\n\n<i>demo/echo · 12 in, 3 out</i>']);
  });

  it('sends the text again without markup when Telegram cannot parse the HTML', async () => {
    api.failNext = new OpenLegionError('CHAN_API_ERROR', 'refused', {
      details: { description: "Bad Request: can't parse entities: Unsupported start tag" },
    });
    const reply = stream();
    reply.push({ type: 'text_delta', text: '**bold**' });
    const finished = reply.finish();
    await clock.advance(EDIT_INTERVAL_MS);
    await finished;
    expect(api.sentTo(CHAT)).toEqual(['<b>bold</b>', '**bold**']);
    expect(api.calls[1]?.options?.parseMode).toBeUndefined();
  });

  it('paces two replies streaming into the same chat together', async () => {
    const first = stream({ header: '*a*' });
    const second = stream({ header: '*b*' });
    first.push({ type: 'text_delta', text: 'one' });
    second.push({ type: 'text_delta', text: 'two' });
    const done = Promise.all([first.finish(), second.finish()]);
    await clock.advance(5 * EDIT_INTERVAL_MS);
    await done;
    const [firstAt = 0, secondAt = 0] = api.calls.map((call) => call.at);
    expect(secondAt - firstAt).toBeGreaterThanOrEqual(EDIT_INTERVAL_MS);
    expect(api.currentTexts(CHAT)).toEqual(['<i>a</i>\n\none', '<i>b</i>\n\ntwo']);
  });
});
