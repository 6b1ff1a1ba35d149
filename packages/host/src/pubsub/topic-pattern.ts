/**
 * A predicate for topics matching a subscription pattern: `research.*` (one dot-separated part),
 * `news.**` or `news.>` (any number of parts after `news.`); other parts are literal.
 */
export function topicMatcher(pattern: string): (topic: string) => boolean {
  const parts = pattern.split('.').map((part) => {
    if (part === '**' || part === '>') return '.*';
    if (part === '*') return '[^.]+';
    return part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  });
  const regex = new RegExp(`^${parts.join('\\.')}$`);
  return (topic) => regex.test(topic);
}
