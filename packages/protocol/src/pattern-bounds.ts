import { z } from 'zod';

/**
 * Bounds on every pattern the host matches: permission globs in mesh.yaml, a blackboard watch's
 * `pattern`, a pub/sub subscription's `pattern` and the events `topic` filter.
 *
 * The host's matcher runs in time proportional to pattern length × value length, whatever the
 * pattern, so these bounds are not what keeps it fast; they keep that product small (256 × a
 * 256-character key) and refuse, with a clear message, patterns no person writes on purpose. Real
 * patterns use one to three wildcards (`research/*`, `*.wikipedia.org`, `tasks.*.done`); 16 leaves
 * ample room and still refuses the pile-of-stars patterns that freeze a backtracking matcher.
 */
export const MAX_PATTERN_LENGTH = 256;
export const MAX_PATTERN_WILDCARDS = 16;

/** The two pattern syntaxes: globs (permissions, blackboard keys, egress hosts) and topic patterns. */
export type PatternSyntax = 'glob' | 'topic';

/** How many wildcards a pattern has: `*` and `?` characters of a glob; `*`, `**` and `>` parts of a topic pattern. */
export function countWildcards(pattern: string, syntax: PatternSyntax): number {
  if (syntax === 'topic')
    return pattern.split('.').filter((part) => part === '*' || part === '**' || part === '>').length;
  let count = 0;
  for (const char of pattern) if (char === '*' || char === '?') count += 1;
  return count;
}

/** What is wrong with `pattern` (a sentence naming the bound and the fix), or undefined when it is within bounds. */
export function patternProblem(pattern: string, syntax: PatternSyntax): string | undefined {
  if (pattern.length === 0) return 'a pattern is not empty';
  if (pattern.length > MAX_PATTERN_LENGTH)
    return `a pattern is at most ${MAX_PATTERN_LENGTH} characters (this one has ${pattern.length}); use a shorter one`;
  const wildcards = countWildcards(pattern, syntax);
  if (wildcards > MAX_PATTERN_WILDCARDS) {
    const kinds = syntax === 'glob' ? '* or ?' : '*, ** or > parts';
    return `a pattern has at most ${MAX_PATTERN_WILDCARDS} wildcards (${kinds}); this one has ${wildcards}: use fewer`;
  }
  return undefined;
}

function boundedPattern(syntax: PatternSyntax) {
  return z.string().superRefine((pattern, ctx) => {
    const problem = patternProblem(pattern, syntax);
    if (problem) ctx.addIssue({ code: 'custom', message: problem });
  });
}

/** A glob (`research/*`, `*.wikipedia.org`): `*` any run of characters, `?` one, the rest literal; bounded. */
export const globPatternSchema = boundedPattern('glob');

/** A topic pattern (`research.*`, `news.**`, `news.>`): dot-separated parts; bounded. */
export const topicPatternSchema = boundedPattern('topic');
