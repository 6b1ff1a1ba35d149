/** A turn running in a conversation, and the messages steered into it. */
export interface ActiveTurn {
  /** Messages steered since the last call; empties the queue. */
  drainSteered(): string[];
  end(): void;
}

/**
 * The turns running now, one per conversation at most. `POST /chat/steer` queues a message on the
 * running turn of its conversation; the loop applies it after the current tool round.
 */
export class ActiveTurns {
  readonly #queues = new Map<string, string[]>();

  /** Start a turn in a conversation; `undefined` when one runs there already. */
  begin(conversationId: string): ActiveTurn | undefined {
    if (this.#queues.has(conversationId)) return undefined;
    const queue: string[] = [];
    this.#queues.set(conversationId, queue);
    return {
      drainSteered: () => queue.splice(0),
      end: () => {
        if (this.#queues.get(conversationId) === queue) this.#queues.delete(conversationId);
      },
    };
  }

  /** Queue a message for the running turn; false when no turn runs in that conversation. */
  steer(conversationId: string, message: string): boolean {
    const queue = this.#queues.get(conversationId);
    if (queue === undefined) return false;
    queue.push(message);
    return true;
  }

  get size(): number {
    return this.#queues.size;
  }

  has(conversationId: string): boolean {
    return this.#queues.has(conversationId);
  }
}
