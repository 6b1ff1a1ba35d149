/**
 * A matcher for shell-style globs (`research/*`, `tasks.*`, `*.wikipedia.org`): `*` is any run of
 * characters (separators included), `?` one character; everything else is literal.
 */
export function globMatcher(patterns: readonly string[]): (value: string) => boolean {
  if (patterns.length === 0) return () => false;
  const source = patterns.map((pattern) =>
    pattern
      .split('')
      .map((char) => (char === '*' ? '.*' : char === '?' ? '.' : char.replace(/[\\^$.|+()[\]{}]/g, '\\$&')))
      .join(''),
  );
  const regex = new RegExp(`^(?:${source.join('|')})$`, 's');
  return (value) => regex.test(value);
}
