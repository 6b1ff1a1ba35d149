/**
 * The one pattern matcher of the host, for permission globs, blackboard watches, egress host names
 * and pub/sub topic patterns. Patterns come from agents, so no regex is ever built from one: a
 * pattern is compiled to tokens and walked against the value with the classic two-pointer
 * wildcard algorithm (the model is Go's path/filepath.Match), which takes at most
 * O(pattern length × value length) steps for any pattern, never exponential time.
 */

/** A compiled pattern: whether a value matches it. */
export type PatternMatch = (value: string) => boolean;

/**
 * Whether a value of `valueLength` units matches a pattern of `patternLength` tokens, where
 * `isStar(p)` tokens match any run of units (none included) and every other token matches one unit
 * when `unitMatches(p, v)`. On a mismatch the walk resumes after the last star with that star
 * taking one unit more; earlier stars are never revisited, because whatever an earlier star could
 * take instead, the last one can take too. Each retry moves that star's start one unit on and costs
 * at most `patternLength` steps: O(patternLength × valueLength) in all.
 */
function wildcardWalk(
  patternLength: number,
  isStar: (p: number) => boolean,
  valueLength: number,
  unitMatches: (p: number, v: number) => boolean,
): boolean {
  let p = 0;
  let v = 0;
  let starP = -1;
  let starV = 0;
  while (v < valueLength) {
    if (p < patternLength && isStar(p)) {
      starP = p;
      starV = v;
      p += 1;
    } else if (p < patternLength && unitMatches(p, v)) {
      p += 1;
      v += 1;
    } else if (starP >= 0) {
      p = starP + 1;
      starV += 1;
      v = starV;
    } else {
      return false;
    }
  }
  while (p < patternLength && isStar(p)) p += 1;
  return p === patternLength;
}

/**
 * One shell-style glob (`research/*`, `tasks.*`, `*.wikipedia.org`): `*` is any run of characters
 * (separators included, none too), `?` exactly one UTF-16 unit, everything else literal and
 * case-sensitive.
 *
 * Globs are matched per key, per change and per connection, so this is the hot path: the pattern
 * is cut at its stars into chunks (as Go's filepath.Match does); the first chunk must start the
 * value, the last must end it, and each one between is placed at its leftmost fit after the one
 * before (leftmost is never worse: it leaves the most room for the rest). That is the two-pointer
 * walk of {@link wildcardWalk} with each retry done by `indexOf` when a chunk has no `?`.
 */
export function compileGlob(pattern: string): PatternMatch {
  const chunks = pattern.split('*');
  const first = chunks[0] ?? '';
  if (chunks.length === 1) return (value) => value.length === first.length && chunkAt(first, value, 0);
  const last = chunks.at(-1) ?? '';
  const middle = chunks.slice(1, -1).filter((chunk) => chunk.length > 0);
  return (value) => {
    const end = value.length - last.length;
    if (end < first.length || !chunkAt(first, value, 0) || !chunkAt(last, value, end)) return false;
    let at = first.length;
    for (const chunk of middle) {
      const found = findChunk(chunk, value, at, end);
      if (found < 0) return false;
      at = found + chunk.length;
    }
    return true;
  };
}

/** Whether `chunk` (literal but for `?`, any one unit) is in `value` at `at`. */
function chunkAt(chunk: string, value: string, at: number): boolean {
  for (let i = 0; i < chunk.length; i += 1) {
    const code = chunk.charCodeAt(i);
    if (code !== QUESTION_MARK && code !== value.charCodeAt(at + i)) return false;
  }
  return true;
}

/** The leftmost place from `from` where `chunk` fits wholly before `end`, or -1. */
function findChunk(chunk: string, value: string, from: number, end: number): number {
  const latest = end - chunk.length;
  if (!chunk.includes('?')) {
    const found = value.indexOf(chunk, from);
    return found <= latest ? found : -1;
  }
  for (let at = from; at <= latest; at += 1) if (chunkAt(chunk, value, at)) return at;
  return -1;
}

const QUESTION_MARK = 0x3f;

/** Whether a value matches any of `patterns` (globs, see {@link compileGlob}); none matches nothing. */
export function globMatcher(patterns: readonly string[]): PatternMatch {
  const compiled = patterns.map(compileGlob);
  return (value) => compiled.some((matches) => matches(value));
}

/** A token of a compiled topic pattern: a literal part, or one of these. */
const TOPIC_STAR = Symbol('any run of parts');
const TOPIC_ANY_PART = Symbol('any one part');
const TOPIC_WORD = Symbol('one non-empty part');
type TopicToken = string | typeof TOPIC_STAR | typeof TOPIC_ANY_PART | typeof TOPIC_WORD;

/**
 * A predicate for topics matching a subscription pattern of dot-separated parts: `*` is exactly
 * one part (`research.*` matches `research.done`), `**` or `>` one or more parts (`news.**`
 * matches `news.a` and `news.a.b`); other parts are literal. Zero parts do not match: `news.**`
 * does not match `news` (the behaviour subscriptions have always had; subscribe to `news` too for
 * that).
 */
export function topicMatcher(pattern: string): PatternMatch {
  const tokens: TopicToken[] = pattern.split('.').flatMap((part): TopicToken[] => {
    if (part === '**' || part === '>') return [TOPIC_ANY_PART, TOPIC_STAR];
    return [part === '*' ? TOPIC_WORD : part];
  });
  const isStar = (p: number) => tokens[p] === TOPIC_STAR;
  return (topic) => {
    const parts = topic.split('.');
    return wildcardWalk(tokens.length, isStar, parts.length, (p, v) => {
      const token = tokens[p];
      const part = parts[v] ?? '';
      if (token === TOPIC_ANY_PART) return true;
      if (token === TOPIC_WORD) return part.length > 0;
      return token === part;
    });
  };
}
