import type { Clock } from '@openlegion/infra/clock';
import type { Logger } from 'pino';
import { updateIdOf } from './handled-updates.js';
import { backoffDelayMs } from './retry-transformer.js';
import type { TelegramApi } from './telegram-api.js';

export interface UpdatePollerOptions {
  api: TelegramApi;
  clock: Clock;
  logger: Logger;
  /** The first update to ask for: the one after the last taken in. */
  firstOffset: number | undefined;
  /** Take one update in (once: updates seen before are dropped there). Never throws. */
  dispatch: (raw: unknown) => Promise<void>;
  /** getUpdates' long-poll timeout. */
  timeoutSeconds: number;
}

/**
 * Long polling: getUpdates with the offset after the last update taken in, each update handled in
 * order, then the next call (which confirms them to Telegram). Failures back off through the clock;
 * the API client already retried 429 and 5xx, so what arrives here is a refusal such as 409 (another
 * process polls the same bot) or a cut connection.
 */
export class UpdatePoller {
  readonly #stopping = new AbortController();
  #loop: Promise<void> | undefined;

  constructor(private readonly options: UpdatePollerOptions) {}

  start(): void {
    this.#loop ??= this.#run();
  }

  async stop(): Promise<void> {
    this.#stopping.abort();
    await this.#loop;
  }

  async #run(): Promise<void> {
    const { api, clock, logger, timeoutSeconds } = this.options;
    const signal = this.#stopping.signal;
    let offset = this.options.firstOffset;
    let failures = 0;
    while (!signal.aborted) {
      let updates: unknown[];
      try {
        updates = await api.getUpdates(offset, timeoutSeconds, signal);
        failures = 0;
      } catch (error) {
        if (signal.aborted) break;
        failures += 1;
        const waitMs = backoffDelayMs(failures);
        logger.warn({ err: error, waitMs }, 'telegram getUpdates failed; polling again after a pause');
        await clock.sleep(waitMs, signal).catch(() => {});
        continue;
      }
      for (const raw of updates) {
        const updateId = updateIdOf(raw);
        if (updateId === undefined) continue;
        offset = Math.max(offset ?? 0, updateId + 1);
        await this.options.dispatch(raw);
      }
    }
  }
}
