import { Readability } from '@mozilla/readability';
import { parseHTML } from 'linkedom';
import TurndownService from 'turndown';
// @ts-expect-error turndown-plugin-gfm ships no types; it exports `gfm(service)`.
import { gfm } from 'turndown-plugin-gfm';
import { cleanArticle, unwrapQuotes } from './article-cleaner.js';
import { type ElementLike, textLength } from './boilerplate.js';
import { htmlToText } from './html-to-text.js';

/** What a page holds for a reader: its metadata and its main content in three forms. */
export interface ExtractedPage {
  title: string;
  byline: string | null;
  siteName: string | null;
  excerpt: string | null;
  publishedTime: string | null;
  lang: string | null;
  /** Whether Readability found an article; false means the whole cleaned body is the content. */
  article: boolean;
  html: string;
  markdown(): string;
  text(): string;
}

/** Cleaning that keeps less than this share of the article, and fewer characters, is not trusted. */
const CLEANED_MIN_SHARE = 0.2;
const CLEANED_MIN_CHARS = 500;
/** Removed from the whole page when no article is found: never content. */
const NOISE = 'script, style, noscript, template, svg, iframe, nav, header, footer, form, aside';

/**
 * The main content of an HTML page, found by Mozilla's Readability (the Firefox Reader View
 * algorithm) on a linkedom DOM and cleaned of what people do not count as the article (captions,
 * share bars, related links, datelines: {@link cleanArticle}), with links resolved against `url`.
 * Pages without an article fall back to the body without scripts, navigation and forms. Markdown
 * comes from Turndown (GFM tables). Measured by `pnpm bench web-extract` (docs/tools.md).
 */
export function extractPage(html: string, url: string): ExtractedPage {
  const { document } = parseHTML(html);
  anchorTo(document, url);
  const documentTitle = document.title?.trim() ?? '';
  const article = parseArticle(document);
  const content = article?.content ?? fallbackBody(html, url);
  const memo = new Map<string, string>();
  const once = (key: string, make: () => string): string => {
    const made = memo.get(key) ?? make();
    memo.set(key, made);
    return made;
  };
  return {
    title: article?.title?.trim() || documentTitle,
    byline: article?.byline?.trim() || null,
    siteName: article?.siteName?.trim() || null,
    excerpt: article?.excerpt?.trim() || null,
    publishedTime: article?.publishedTime ?? null,
    lang: article?.lang ?? null,
    article: article !== null,
    html: content,
    markdown: () => once('markdown', () => toMarkdown(content)),
    text: () =>
      once('text', () => htmlToText(parseHTML(`<html><body>${content}</body></html>`).document.body)),
  };
}

type Article = ReturnType<Readability<string>['parse']>;
type ArticleRoot = ElementLike & {
  innerHTML: string;
  removeAttribute(name: string): void;
  cloneNode(deep: true): ArticleRoot;
};
type LinkedDocument = ReturnType<typeof parseHTML>['document'];
type LinkedElement = {
  getAttribute(name: string): string | null;
  setAttribute(name: string, value: string): void;
};

function parseArticle(document: LinkedDocument): Article {
  try {
    unwrapQuotes(document.documentElement as unknown as ElementLike);
    // Classes are kept for the cleaner to read, and the content comes back as a node to clean in place.
    const parsed = new Readability<ArticleRoot>(
      document as unknown as ConstructorParameters<typeof Readability>[0],
      {
        keepClasses: true,
        serializer: (node) => node as unknown as ArticleRoot,
      },
    ).parse();
    if (!parsed?.content) return null;
    const uncleaned = parsed.content.cloneNode(true);
    const root = parsed.content;
    cleanArticle(root);
    const kept = textLength(root.textContent);
    // Rules that leave almost nothing of a sizeable article misread the page: Readability's pick stands.
    const content =
      kept < CLEANED_MIN_CHARS && kept < textLength(uncleaned.textContent) * CLEANED_MIN_SHARE
        ? uncleaned
        : root;
    for (const element of [
      content,
      ...(Array.from(content.querySelectorAll('[class]')) as unknown as ArticleRoot[]),
    ])
      element.removeAttribute('class');
    return { ...parsed, content: content.innerHTML };
  } catch {
    return null; // A page Readability cannot handle still has a body to fall back to.
  }
}

function fallbackBody(html: string, url: string): string {
  const { document } = parseHTML(html);
  for (const element of Array.from(document.querySelectorAll(NOISE)) as { remove(): void }[])
    element.remove();
  // Readability resolves the links of an article; here it is done by hand.
  for (const [selector, attribute] of [
    ['a[href]', 'href'],
    ['img[src]', 'src'],
  ] as const) {
    for (const element of Array.from(document.querySelectorAll(selector)) as LinkedElement[]) {
      const value = element.getAttribute(attribute);
      if (value === null || value.startsWith('#')) continue;
      try {
        element.setAttribute(attribute, new URL(value, url).href);
      } catch {
        // Not a URL: left as it is.
      }
    }
  }
  return document.body?.innerHTML ?? '';
}

/** Relative links and images resolve against the page's own address (or its `<base>`). */
function anchorTo(document: LinkedDocument, url: string): void {
  Object.defineProperty(document, 'documentURI', { value: url, configurable: true });
  if (!document.querySelector('base[href]') && document.head) {
    const base = document.createElement('base');
    base.setAttribute('href', url);
    document.head.prepend(base);
  }
}

let turndown: TurndownService | undefined;

function toMarkdown(html: string): string {
  if (!turndown) {
    turndown = new TurndownService({ headingStyle: 'atx', codeBlockStyle: 'fenced', bulletListMarker: '-' });
    turndown.use(gfm);
    turndown.remove(['script', 'style', 'noscript']);
  }
  return turndown
    .turndown(html)
    .replace(/\n{3,}/g, '\n\n')
    .trim();
}
