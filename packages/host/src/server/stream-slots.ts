import { OpenLegionError } from '@openlegion/protocol';
import type { FeatureContext } from '../features/index.js';

/**
 * How many SSE streams each agent holds open, across the host's features (blackboard watches and
 * pub/sub streams share one count): each holds a socket and up to a backlog of memory, so an
 * agent gets at most `limits.streams_per_agent` of them.
 */
export class StreamSlots {
  readonly #open = new Map<string, number>();
  readonly #perAgent: number;

  constructor(perAgent: number) {
    this.#perAgent = perAgent;
  }

  /**
   * Take one of `agent`'s slots, or throw 429 MESH_STREAM_LIMIT. Returns the function that gives
   * it back; calling that again does nothing, so every way a stream ends may call it.
   */
  acquire(agent: string): () => void {
    const open = this.open(agent);
    if (open >= this.#perAgent) {
      throw new OpenLegionError(
        'MESH_STREAM_LIMIT',
        `agent "${agent}" already has ${open} streams open, as many as limits.streams_per_agent ` +
          `(${this.#perAgent}) allows; close one (end a watch or a pub/sub stream) before opening another`,
        { details: { agent, open, max: this.#perAgent, field: 'limits.streams_per_agent' } },
      );
    }
    this.#open.set(agent, open + 1);
    let released = false;
    return () => {
      if (released) return;
      released = true;
      const left = this.open(agent) - 1;
      if (left > 0) this.#open.set(agent, left);
      else this.#open.delete(agent);
    };
  }

  /** The streams `agent` holds open now. */
  open(agent: string): number {
    return this.#open.get(agent) ?? 0;
  }
}

const slotsByHost = new WeakMap<FeatureContext, StreamSlots>();

/** The one stream count of the host whose features share `context`. */
export function streamSlotsOf(context: FeatureContext): StreamSlots {
  let slots = slotsByHost.get(context);
  if (!slots) {
    slots = new StreamSlots(context.config.limits.streams_per_agent);
    slotsByHost.set(context, slots);
  }
  return slots;
}
