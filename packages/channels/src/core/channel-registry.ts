import type { ChannelName } from '@openlegion/protocol';
import type { Logger } from 'pino';
import { escapeMarkdown } from './reply-lines.js';

/** A running channel as the registry knows it. */
export interface RegisteredChannel {
  name: ChannelName;
  /** `channels.<name>.mirror`: its agent replies and operator notices also go to the other channels' owners. */
  mirror: boolean;
  /**
   * Whether the channel tells its own owner every operator notice (it subscribes to them): a
   * mirrored notice skips it, so nobody reads one twice.
   */
  receivesNotices?: boolean;
  /** Send Markdown to this channel's owner; false when nobody owns it (nothing was sent). */
  tellOwner(markdown: string): Promise<boolean>;
}

/**
 * The channels running in this process, filled by the CLI as it starts them. Mirroring goes
 * through it: a reply or notice on a channel with `mirror: true` also reaches the owner on every
 * other paired channel (distinct from `/broadcast`, which sends one message to every agent).
 *
 * @example
 * const registry = new ChannelRegistry(logger);
 * const unregister = registry.register({ name: 'telegram', mirror: true, tellOwner });
 * await registry.mirrorReply('telegram', 'researcher', 'The answer.');
 */
export class ChannelRegistry {
  readonly #channels = new Map<ChannelName, RegisteredChannel>();

  constructor(private readonly logger?: Logger) {}

  /** Add a channel; returns the function that removes it (at its stop). */
  register(channel: RegisteredChannel): () => void {
    this.#channels.set(channel.name, channel);
    return () => {
      if (this.#channels.get(channel.name) === channel) this.#channels.delete(channel.name);
    };
  }

  list(): RegisteredChannel[] {
    return [...this.#channels.values()];
  }

  /** An agent's reply on `from`, to the owners of the other channels when `from` mirrors; how many got it. */
  mirrorReply(from: ChannelName, agent: string, markdown: string): Promise<number> {
    return this.#mirror(from, `*${escapeMarkdown(agent)}* \\(on ${from}\\)\n\n${markdown}`);
  }

  /** An operator notice shown on `from`, to the owners of the other channels when `from` mirrors. */
  mirrorNotice(from: ChannelName, markdown: string): Promise<number> {
    return this.#mirror(from, markdown, (channel) => !channel.receivesNotices);
  }

  async #mirror(
    from: ChannelName,
    markdown: string,
    wanted: (channel: RegisteredChannel) => boolean = () => true,
  ): Promise<number> {
    if (!this.#channels.get(from)?.mirror) return 0;
    const others = this.list().filter((channel) => channel.name !== from && wanted(channel));
    const told = await Promise.all(
      others.map((channel) =>
        channel.tellOwner(markdown).catch((error: unknown) => {
          // A mirror is a copy: its failure never fails the reply it copies.
          this.logger?.warn({ err: error, channel: channel.name, from }, 'mirroring failed');
          return false;
        }),
      ),
    );
    return told.filter(Boolean).length;
  }
}
