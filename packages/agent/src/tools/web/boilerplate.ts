/**
 * Signs that a part of a page is not the article: the names sites give their share bars, related
 * links, sign-up boxes, comment sections and captions, and how much of a block's text is links.
 * General web conventions (the words trafilatura and Readability also look for), nothing per site.
 */

/** The DOM shape these checks read (linkedom's elements have it). */
export interface ElementLike {
  tagName: string;
  textContent: string | null;
  parentElement: ElementLike | null;
  getAttribute(name: string): string | null;
  querySelectorAll(selector: string): ArrayLike<ElementLike>;
  closest(selector: string): ElementLike | null;
  remove(): void;
  childNodes: ArrayLike<unknown>;
  replaceWith(...nodes: unknown[]): void;
}

/**
 * Class or id words of boilerplate. Matched inside a name (`relatedStories`, `share-bar`), so each
 * word is specific enough not to occur inside the names of article containers.
 */
const BOILERPLATE_WORDS =
  /share|sharing|social|related|recommend|newsletter|subscri|signup|sign-up|comment(?!ary)|disqus|promo|advert|sponsor|breadcrumb|outbrain|taboola|trending|popular|most-read|mostread|recirc|more-stories|morestories|read-more|readmore|also-read|caption|credit|byline|dateline|timestamp|cookie|consent|paywall|toolbar|pagination|sidebar|widget|footer|masthead|skip-link/i;
/** Short boilerplate words that must stand alone in a name (`tags`, `ad`, not `headline`). */
const BOILERPLATE_TOKENS = /(?:^|[\s_-])(?:ad|ads|tag|tags|bio|nav|menu|rail|print|date|time)(?:$|[\s_-])/i;

/** A class or id that names boilerplate. */
export function hasBoilerplateName(element: ElementLike): boolean {
  const name = `${element.getAttribute('class') ?? ''} ${element.getAttribute('id') ?? ''}`.trim();
  if (name === '') return false;
  return BOILERPLATE_WORDS.test(name) || BOILERPLATE_TOKENS.test(name);
}

/** Characters of a text without its whitespace. */
export function textLength(text: string | null): number {
  return (text ?? '').replace(/\s+/g, '').length;
}

/** The share of an element's text that sits in links (0 for an element without text). */
export function linkDensity(element: ElementLike): number {
  const total = textLength(element.textContent);
  if (total === 0) return 0;
  let linked = 0;
  for (const link of Array.from(element.querySelectorAll('a'))) linked += textLength(link.textContent);
  return Math.min(1, linked / total);
}

/** Words of a text (letters and digits, any script). */
export function wordCount(text: string | null): number {
  return (text ?? '').match(/[\p{L}\p{N}]+/gu)?.length ?? 0;
}
