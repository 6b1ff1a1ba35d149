import type { ChannelChatRequest, ChatEvent } from '@openlegion/protocol';
import { FakeChannelMesh } from './fake-channel-mesh.js';

/**
 * A FakeChannelMesh whose answers stream in steps a test releases one at a time (`release()`), so
 * a test can act (cut the socket, replay an event) while a reply is half written.
 */
export class GatedChannelMesh extends FakeChannelMesh {
  readonly #waiting: (() => void)[] = [];
  #released = 0;

  /** Let the next step of the stream run (steps already waiting first). */
  release(): void {
    const next = this.#waiting.shift();
    if (next) next();
    else this.#released += 1;
  }

  #gate(): Promise<void> {
    if (this.#released > 0) {
      this.#released -= 1;
      return Promise.resolve();
    }
    return new Promise((resolve) => this.#waiting.push(resolve));
  }

  /** Stream `parts` as text deltas, each after a release, then done. */
  streamParts(parts: string[]): void {
    this.streamed = parts;
  }

  streamed: string[] = [];

  override async *chat(
    agent: string,
    request: ChannelChatRequest,
    signal?: AbortSignal,
  ): AsyncIterable<ChatEvent> {
    if (this.streamed.length === 0) {
      yield* super.chat(agent, request, signal);
      return;
    }
    this.chats.push({ agent, request });
    for (const text of this.streamed) {
      await this.#gate();
      signal?.throwIfAborted();
      yield { type: 'text_delta', text };
    }
    yield {
      type: 'done',
      conversation_id: request.conversation_id ?? 'default',
      text: this.streamed.join(''),
    };
  }
}
