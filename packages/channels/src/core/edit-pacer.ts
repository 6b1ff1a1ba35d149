import type { Clock } from '@openlegion/infra/clock';

/** At most one round of sends/edits per chat in this many milliseconds while a reply streams. */
export const EDIT_INTERVAL_MS = 1_500;

/**
 * Spaces out the writes of every reply streaming into one chat (a `/broadcast` streams several),
 * so the bot stays under the platform's per-chat rate limits (Telegram's flood limits, Discord's
 * 5 edits per 5 s, Slack's tier limits).
 */
export class EditPacer {
  readonly #nextFreeAt = new Map<string | number, number>();

  constructor(
    private readonly clock: Clock,
    private readonly intervalMs = EDIT_INTERVAL_MS,
  ) {}

  /** Reserve the chat's next slot; resolves to how long to wait for it (0 when free now). */
  reserve(chatId: string | number): number {
    const now = this.clock.now();
    const at = Math.max(now, this.#nextFreeAt.get(chatId) ?? now);
    this.#nextFreeAt.set(chatId, at + this.intervalMs);
    return at - now;
  }
}
