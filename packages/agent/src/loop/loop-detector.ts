/** Identical calls (same tool, same arguments) in one turn at which the loop detector acts. */
export const LOOP_WARN_AT = 2;
export const LOOP_BLOCK_AT = 4;
export const LOOP_END_AT = 9;

/** `run` as usual; `warn` runs it with a note; `block` refuses to run it; `end` ends the turn. */
export type LoopVerdict = 'run' | 'warn' | 'block' | 'end';

/**
 * Counts identical tool calls within one turn. Arguments are compared by meaning (keys sorted), so
 * `{"a":1,"b":2}` and `{"b":2,"a":1}` are the same call.
 */
export class LoopDetector {
  readonly #counts = new Map<string, number>();

  /** Record a call and say what to do with it; `count` is how many identical calls there have been. */
  check(name: string, input: unknown): { verdict: LoopVerdict; count: number } {
    const key = `${name}\u0000${canonicalJson(input)}`;
    const count = (this.#counts.get(key) ?? 0) + 1;
    this.#counts.set(key, count);
    const verdict: LoopVerdict =
      count >= LOOP_END_AT
        ? 'end'
        : count >= LOOP_BLOCK_AT
          ? 'block'
          : count >= LOOP_WARN_AT
            ? 'warn'
            : 'run';
    return { verdict, count };
  }

  /** Forget the counts: a turn escalated to another model starts its count afresh. */
  reset(): void {
    this.#counts.clear();
  }
}

/** JSON with object keys sorted at every level. */
export function canonicalJson(value: unknown): string {
  return (
    JSON.stringify(value, (_key, inner: unknown) =>
      inner !== null && typeof inner === 'object' && !Array.isArray(inner)
        ? Object.fromEntries(Object.entries(inner).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)))
        : inner,
    ) ?? 'undefined'
  );
}
