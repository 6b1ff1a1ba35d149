import type { FakeSlackBotMessage } from './slack-types.js';

/** chat.postMessage refuses `text` longer than this (msg_too_long). */
export const SLACK_TEXT_LIMIT = 40_000;
/** A section block's text may hold this many characters (invalid_blocks past it). */
export const SLACK_SECTION_TEXT_LIMIT = 3_000;

/** Why Slack would refuse these blocks (invalid_blocks), or undefined when they are fine. */
export function blocksProblem(blocks: unknown): string | undefined {
  if (blocks === undefined) return undefined;
  if (!Array.isArray(blocks) || blocks.length > 50) return 'invalid_blocks';
  for (const block of blocks) {
    if (typeof block !== 'object' || block === null || !('type' in block)) return 'invalid_blocks';
    if (block.type === 'section') {
      const text = 'text' in block ? block.text : undefined;
      const body = typeof text === 'object' && text !== null && 'text' in text ? text.text : undefined;
      if (typeof body !== 'string' || body.length === 0 || body.length > SLACK_SECTION_TEXT_LIMIT)
        return 'invalid_blocks';
    }
  }
  return undefined;
}

/** The bot's messages in the fake workspace, with Slack's `ts` ids (seconds.sequence, ascending). */
export class FakeSlackMessages {
  readonly all: FakeSlackBotMessage[] = [];
  #sequence = 0;

  post(channel: string, text: string, blocks: unknown[] | undefined, threadTs?: string): FakeSlackBotMessage {
    this.#sequence += 1;
    const ts = `1700000000.${String(this.#sequence).padStart(6, '0')}`;
    const message: FakeSlackBotMessage = {
      channel,
      ts,
      text,
      edits: [],
      ...(blocks ? { blocks } : {}),
      ...(threadTs ? { thread_ts: threadTs } : {}),
    };
    this.all.push(message);
    return message;
  }

  find(channel: string, ts: string): FakeSlackBotMessage | undefined {
    return this.all.find((message) => message.channel === channel && message.ts === ts);
  }

  /** A new `ts` for something a person wrote. */
  nextUserTs(): string {
    this.#sequence += 1;
    return `1700000000.${String(this.#sequence).padStart(6, '0')}`;
  }
}
