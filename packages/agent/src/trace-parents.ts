import { parseTraceparent } from '@openlegion/protocol';

/** Turns in flight at once are few; a trace's parent is kept a little longer than its turn. */
const MAX_TRACES = 64;

/**
 * The W3C `traceparent` the host gave each turn, by the turn's trace id: every call the agent
 * makes to the host under that trace (LLM, mesh) passes it on, so the host's spans of those calls
 * hang under the turn's span. The agent makes no spans and reaches no collector itself.
 */
export class TraceParents {
  readonly #byTrace = new Map<string, string>();

  /** Keep `header` for `traceId` when both are there and the header is a valid `traceparent`. */
  remember(traceId: string | undefined, header: unknown): void {
    if (!traceId || typeof header !== 'string' || !parseTraceparent(header)) return;
    this.#byTrace.delete(traceId);
    this.#byTrace.set(traceId, header);
    if (this.#byTrace.size > MAX_TRACES) {
      const oldest = this.#byTrace.keys().next().value;
      if (oldest !== undefined) this.#byTrace.delete(oldest);
    }
  }

  /** The `traceparent` of `traceId`'s turn, if the host sent one. */
  of(traceId: string | undefined): string | undefined {
    return traceId === undefined ? undefined : this.#byTrace.get(traceId);
  }
}
