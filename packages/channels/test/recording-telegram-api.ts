import type { Clock } from '@openlegion/infra/clock';
import type { SendOptions, TelegramApi } from '../src/telegram/telegram-api.js';

/** One call the recording API received, with the clock's time. */
export interface RecordedTelegramCall {
  method: 'sendMessage' | 'editMessageText' | 'answerCallbackQuery';
  chatId?: number;
  messageId?: number;
  text?: string;
  options?: SendOptions;
  at: number;
}

/** A TelegramApi for unit tests: no network, every write recorded, messages kept per id. */
export class RecordingTelegramApi implements TelegramApi {
  readonly calls: RecordedTelegramCall[] = [];
  /** message id → its current text. */
  readonly texts = new Map<number, string>();
  readonly #chatOf = new Map<number, number>();
  /** Throw this from the next sendMessage/editMessageText call. */
  failNext: unknown;
  #nextId = 100;

  constructor(private readonly clock: Clock) {}

  getMe = async () => ({ id: 1, username: 'test_bot' });
  getUpdates = async () => [];
  setWebhook = async () => {};
  deleteWebhook = async () => {};

  async sendMessage(chatId: number, text: string, options?: SendOptions) {
    this.calls.push({ method: 'sendMessage', chatId, text, options, at: this.clock.now() });
    this.#maybeFail();
    const messageId = this.#nextId++;
    this.texts.set(messageId, text);
    this.#chatOf.set(messageId, chatId);
    return { messageId };
  }

  async editMessageText(chatId: number, messageId: number, text: string, options?: SendOptions) {
    this.calls.push({ method: 'editMessageText', chatId, messageId, text, options, at: this.clock.now() });
    this.#maybeFail();
    this.texts.set(messageId, text);
  }

  async answerCallbackQuery(_id: string, text?: string) {
    this.calls.push({ method: 'answerCallbackQuery', text, at: this.clock.now() });
  }

  /** Texts sent to one chat (sends only, in order). */
  sentTo(chatId: number): string[] {
    return this.calls
      .filter((call) => call.method === 'sendMessage' && call.chatId === chatId)
      .map((call) => call.text ?? '');
  }

  /** Current texts of the messages sent to one chat, in order. */
  currentTexts(chatId: number): string[] {
    return [...this.texts].filter(([id]) => this.#chatOf.get(id) === chatId).map(([, text]) => text);
  }

  #maybeFail(): void {
    const failure = this.failNext;
    this.failNext = undefined;
    if (failure !== undefined) throw failure;
  }
}
