import type { Clock } from '@openlegion/infra/clock';
import type { PlatformReplies } from '../src/core/delivery-contract.js';

/** One write a {@link RecordingReplies} took. */
export interface RecordedWrite {
  method: 'send' | 'edit';
  conversation: string;
  messageId: string;
  text: string;
  replyTo?: string;
  at: number;
}

/**
 * A platform for delivery-core tests: every send and edit recorded, message ids counted from 1,
 * the text each message shows now, and failures on demand (`failNext`, `failWhen`).
 */
export class RecordingReplies implements PlatformReplies {
  readonly writes: RecordedWrite[] = [];
  /** What each message shows now, by id. */
  readonly shown = new Map<string, { conversation: string; text: string }>();
  failNext: unknown[] = [];
  failWhen: ((write: Omit<RecordedWrite, 'messageId' | 'at'>) => unknown) | undefined;
  #nextId = 1;

  constructor(
    private readonly clock: Clock,
    readonly maxMessageChars = 2_000,
  ) {}

  render(markdown: string): string {
    return markdown;
  }

  async send(conversation: string, text: string, options: { replyTo?: string }): Promise<string> {
    this.#maybeFail({ method: 'send', conversation, text, ...options });
    const messageId = String(this.#nextId++);
    this.writes.push({ method: 'send', conversation, messageId, text, at: this.clock.now(), ...options });
    this.shown.set(messageId, { conversation, text });
    return messageId;
  }

  async edit(conversation: string, messageId: string, text: string): Promise<void> {
    this.#maybeFail({ method: 'edit', conversation, text });
    if (!this.shown.has(messageId)) throw new Error(`message ${messageId} was never sent`);
    this.writes.push({ method: 'edit', conversation, messageId, text, at: this.clock.now() });
    this.shown.set(messageId, { conversation, text });
  }

  /** The messages a conversation shows now, in the order they were sent. */
  messagesIn(conversation: string): string[] {
    return [...this.shown.values()].filter((m) => m.conversation === conversation).map((m) => m.text);
  }

  get sends(): RecordedWrite[] {
    return this.writes.filter((write) => write.method === 'send');
  }

  #maybeFail(write: Omit<RecordedWrite, 'messageId' | 'at'>): void {
    const planned = this.failNext.shift();
    if (planned !== undefined) throw planned;
    const failure = this.failWhen?.(write);
    if (failure !== undefined) throw failure;
  }
}
