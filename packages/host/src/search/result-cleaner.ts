import type { SearchResult } from '@openlegion/protocol';
import type { RawResult } from './search-adapter.js';

const TITLE_MAX_CHARS = 300;
const SNIPPET_MAX_CHARS = 600;
const URL_MAX_CHARS = 2_048;
/** Query parameters that only track the click; two URLs differing in them are one page. */
const TRACKING_PARAMS = /^(utm_.*|fbclid|gclid|msclkid|mc_cid|mc_eid|ref_src)$/i;
const ENTITIES: Record<string, string> = {
  amp: '&',
  lt: '<',
  gt: '>',
  quot: '"',
  '#39': "'",
  apos: "'",
  nbsp: ' ',
};

/**
 * The key two results share when they are the same page: host without `www.` and case, path without
 * a trailing slash, query without tracking parameters and in sorted order; scheme, port 80/443 and
 * fragment ignored. Undefined for what is not an http(s) URL.
 */
export function normalisedUrl(text: string): string | undefined {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return undefined;
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return undefined;
  const params = [...url.searchParams]
    .filter(([name]) => !TRACKING_PARAMS.test(name))
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  const query = new URLSearchParams(params).toString();
  const path = url.pathname.replace(/\/+$/, '');
  return `${url.hostname.toLowerCase().replace(/^www\./, '')}${path}${query ? `?${query}` : ''}`;
}

/** Plain text of a provider's snippet or title (Brave marks matches with <strong>), on one line, capped. */
function plainText(text: string, max: number): string {
  const plain = text
    .replace(/<[^>]{0,200}>/g, '')
    .replace(/&(amp|lt|gt|quot|#39|apos|nbsp);/g, (_match, name: string) => ENTITIES[name] ?? '')
    .replace(/\s+/g, ' ')
    .trim();
  return plain.length > max ? `${plain.slice(0, max - 1)}…` : plain;
}

/**
 * Add `raw` results from `provider` to `into`, cleaned, skipping what is not an http(s) URL and
 * pages already there (by {@link normalisedUrl}), until `into` holds `count`.
 */
export function addResults(
  into: { results: SearchResult[]; seen: Set<string> },
  raw: readonly RawResult[],
  provider: string,
  count: number,
): void {
  for (const result of raw) {
    if (into.results.length >= count) return;
    if (result.url.length > URL_MAX_CHARS) continue;
    const key = normalisedUrl(result.url);
    if (key === undefined || into.seen.has(key)) continue;
    into.seen.add(key);
    const published = result.published ? plainText(result.published, 64) : '';
    into.results.push({
      title: plainText(result.title, TITLE_MAX_CHARS) || result.url,
      url: result.url,
      snippet: plainText(result.snippet, SNIPPET_MAX_CHARS),
      ...(published ? { published } : {}),
      provider,
    });
  }
}
