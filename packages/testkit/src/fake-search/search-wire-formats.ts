/** A page a fake search provider finds. */
export interface FakeSearchPage {
  title: string;
  url: string;
  snippet: string;
  /** ISO date; sent in each provider's own field (SearXNG publishedDate, Brave page_age, Tavily published_date). */
  published?: string;
}

export type FakeSearchKind = 'searxng' | 'brave' | 'tavily';

/** The provider's answer to a search, in its own JSON shape, with `pages` as its results. */
export function searchAnswerBody(
  kind: FakeSearchKind,
  query: string,
  pages: readonly FakeSearchPage[],
): unknown {
  if (kind === 'searxng')
    return {
      query,
      number_of_results: pages.length,
      results: pages.map((page, index) => {
        const url = new URL(page.url);
        return {
          url: page.url,
          title: page.title,
          content: page.snippet,
          engine: 'duckduckgo',
          engines: ['duckduckgo', 'brave'],
          parsed_url: [url.protocol.slice(0, -1), url.host, url.pathname, '', url.search.slice(1), ''],
          template: 'default.html',
          positions: [index + 1],
          score: 1 / (index + 1),
          category: 'general',
          publishedDate: page.published ?? null,
        };
      }),
      answers: [],
      corrections: [],
      infoboxes: [],
      suggestions: [],
      unresponsive_engines: [],
    };
  if (kind === 'brave')
    return {
      type: 'search',
      query: {
        original: query,
        show_strict_warning: false,
        is_navigational: false,
        more_results_available: false,
      },
      mixed: { type: 'mixed', main: pages.map((_page, index) => ({ type: 'web', index, all: false })) },
      ...(pages.length === 0
        ? {}
        : {
            web: {
              type: 'search',
              family_friendly: true,
              results: pages.map((page) => ({
                type: 'search_result',
                title: page.title,
                url: page.url,
                // Brave marks the query's words in descriptions.
                description: page.snippet.replace(/\b(\w{5,})\b/, '<strong>$1</strong>'),
                is_source_local: false,
                is_source_both: false,
                language: 'en',
                family_friendly: true,
                meta_url: {
                  scheme: 'https',
                  netloc: new URL(page.url).host,
                  hostname: new URL(page.url).hostname,
                },
                ...(page.published ? { page_age: page.published, age: page.published.slice(0, 10) } : {}),
              })),
            },
          }),
    };
  return {
    query,
    follow_up_questions: null,
    answer: null,
    images: [],
    results: pages.map((page, index) => ({
      title: page.title,
      url: page.url,
      content: page.snippet,
      score: 0.9 - index * 0.05,
      raw_content: null,
      ...(page.published ? { published_date: page.published } : {}),
    })),
    response_time: '0.42',
    request_id: '00000000-0000-4000-8000-000000000000',
  };
}

/** A body of the right JSON type but the wrong shape for `kind` (a provider's format changed). */
export function malformedAnswerBody(kind: FakeSearchKind): unknown {
  if (kind === 'brave')
    return { type: 'search', web: { type: 'search', results: [{ title: 'no url here' }] } };
  return { query: 'x', results: 'not a list' };
}

/** How the provider refuses a key, as it does it: status and body. */
export function keyRefusal(kind: FakeSearchKind): { status: number; body: unknown } {
  if (kind === 'brave')
    return {
      status: 422,
      body: {
        type: 'ErrorResponse',
        error: {
          id: 'c5d3a5c3-0000-4000-8000-000000000000',
          status: 422,
          code: 'SUBSCRIPTION_TOKEN_INVALID',
          detail: 'The provided subscription token is invalid.',
          meta: { component: 'authentication' },
        },
        time: 1_764_000_000,
      },
    };
  if (kind === 'tavily')
    return { status: 401, body: { detail: { error: 'Unauthorized: missing or invalid API key.' } } };
  // SearXNG has no key; an instance without format json enabled answers 403.
  return { status: 403, body: '<!DOCTYPE html><title>403 Forbidden</title><h1>Forbidden</h1>' };
}

/** The provider's 429, with the Retry-After it sends. */
export function rateLimitBody(kind: FakeSearchKind): unknown {
  if (kind === 'brave')
    return {
      type: 'ErrorResponse',
      error: { status: 429, code: 'RATE_LIMITED', detail: 'Request rate limit exceeded for plan.' },
    };
  if (kind === 'tavily') return { detail: { error: 'Rate limit exceeded.' } };
  return 'Too Many Requests';
}
