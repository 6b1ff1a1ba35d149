import { patternProblem } from '@openlegion/protocol';
import { type PatternMatch, topicMatcher } from '../permissions/index.js';

/** Patterns kept compiled; past this many (subscriptions come and go) the cache starts over. */
const MAX_COMPILED_PATTERNS = 1_000;

/**
 * Subscription patterns compiled once each, not once per event and subscription. A pattern that
 * breaks the pattern bounds (stored by a version before they existed) compiles to nothing, so
 * callers skip its subscription.
 */
export class SubscriptionMatchers {
  readonly #compiled = new Map<string, PatternMatch | null>();

  /** The matcher of `pattern`, or undefined when the pattern breaks the bounds. */
  of(pattern: string): PatternMatch | undefined {
    let compiled = this.#compiled.get(pattern);
    if (compiled === undefined) {
      if (this.#compiled.size >= MAX_COMPILED_PATTERNS) this.#compiled.clear();
      compiled = patternProblem(pattern, 'topic') === undefined ? topicMatcher(pattern) : null;
      this.#compiled.set(pattern, compiled);
    }
    return compiled ?? undefined;
  }
}
