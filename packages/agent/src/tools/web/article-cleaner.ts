import { type ElementLike, hasBoilerplateName, linkDensity, textLength, wordCount } from './boilerplate.js';

/** A part holding this share of the article's text is the article, whatever its name says. */
const MAIN_SHARE = 0.3;
/** A list this much of whose text is links is a list of links (related stories, tags). */
const LINK_LIST_DENSITY = 0.5;
/** A paragraph this short and this much of whose text is links points elsewhere ("Related: …"). */
const POINTER_MAX_WORDS = 40;
const POINTER_LINK_DENSITY = 0.6;
/** A block this short that holds a date, a time or © is a dateline or a credit, not prose. */
const DATELINE_MAX_WORDS = 14;
const MONTH_DAY =
  /\b(jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)[a-z]*\.?\s+\d{1,2}\b|\b\d{1,2}\s+(jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)[a-z]*\b/i;
const CLOCK_OR_DATE = /\b\d{1,2}:\d{2}\b|\b\d{1,2}[/.-]\d{1,2}[/.-]\d{2,4}\b|\b\d{4}-\d{2}-\d{2}\b/;

/**
 * Takes out of an article found by Readability what people do not count as the article: captions,
 * parts named as share bars, related links, sign-ups, comments or bylines, lists of links, short
 * paragraphs that are mostly a link, and datelines. A part that holds much of the article's text is
 * kept whatever its name, so a badly named container never empties the page; embedded quotes
 * (tweets, posts) stay, as people count them as the article.
 */
export function cleanArticle(root: ElementLike): void {
  const total = textLength(root.textContent);
  const isMain = (element: ElementLike) => textLength(element.textContent) >= total * MAIN_SHARE;
  const inQuote = (element: ElementLike) =>
    element.closest('blockquote') !== null || element.querySelectorAll('blockquote').length > 0;
  const removeWhere = (selector: string, test: (element: ElementLike) => boolean) => {
    // A copy of the matches: removing while walking a live list would skip the next sibling.
    for (const element of Array.from(root.querySelectorAll(selector)))
      if (test(element) && !inQuote(element)) element.remove();
  };

  removeWhere('figcaption', (caption) => !isMain(caption));
  removeWhere('[class], [id]', (part) => hasBoilerplateName(part) && !isMain(part));
  removeWhere('ul, ol', (list) => linkDensity(list) > LINK_LIST_DENSITY && !isMain(list));
  removeWhere('p, li', isPointer);
  removeWhere('p, div, time, span, li, h2, h3, h4, h5, h6', isDateline);
}

/** A short paragraph or item that is mostly a link. */
function isPointer(block: ElementLike): boolean {
  const words = wordCount(block.textContent);
  return words > 0 && words <= POINTER_MAX_WORDS && linkDensity(block) >= POINTER_LINK_DENSITY;
}

/** A short line with a date, a time or a copyright sign: a dateline, a byline or a credit. */
function isDateline(block: ElementLike): boolean {
  const text = block.textContent ?? '';
  const words = wordCount(text);
  if (words === 0 || words > DATELINE_MAX_WORDS) return false;
  // A sentence that names a date ("The trial begins on Monday, May 4.") is prose.
  if (/(\p{Ll}{3,}|\d)[.!?]["”’)]*\s*$/u.test(text)) return false;
  // A date inside a sentence ("on <time>May 4</time>") is prose: an inline element goes only when
  // its whole line is short.
  if (
    /^(SPAN|TIME)$/i.test(block.tagName) &&
    wordCount(block.parentElement?.textContent ?? '') > DATELINE_MAX_WORDS
  )
    return false;
  return (
    block.tagName.toUpperCase() === 'TIME' ||
    MONTH_DAY.test(text) ||
    CLOCK_OR_DATE.test(text) ||
    text.includes('©')
  );
}

/**
 * Embedded posts (tweets and the like) are blockquotes in wrappers named "social" or "embed", which
 * Readability drops as unlikely or link-heavy content; people count them as the article. Wrappers
 * that hold little besides the quote are replaced by their children before Readability runs.
 */
export function unwrapQuotes(root: ElementLike): void {
  for (const quote of Array.from(root.querySelectorAll('blockquote'))) {
    const size = textLength(quote.textContent);
    let wrapper = quote.parentElement;
    while (wrapper && /^(DIV|SECTION|FIGURE|SPAN)$/i.test(wrapper.tagName)) {
      if (textLength(wrapper.textContent) > size * 1.5 + 50) break;
      const outer = wrapper.parentElement;
      wrapper.replaceWith(...Array.from(wrapper.childNodes));
      wrapper = outer;
    }
  }
}
