import { z } from 'zod';
import { readAnswer } from './read-answer.js';
import type { SearchAdapter } from './search-adapter.js';
import { endpoint } from './search-adapter.js';

/** Brave takes at most 20 results a request. */
const BRAVE_MAX_COUNT = 20;
const FRESHNESS = { day: 'pd', week: 'pw', month: 'pm', year: 'py' } as const;

const answerSchema = z.looseObject({
  // Absent when nothing was found.
  web: z
    .looseObject({
      results: z.array(
        z.looseObject({
          title: z.string().nullish(),
          url: z.string(),
          description: z.string().nullish(),
          page_age: z.string().nullish(),
          age: z.string().nullish(),
        }),
      ),
    })
    .optional(),
});

/**
 * Brave Search API: `GET /res/v1/web/search?q=…&count=…` with the key in `X-Subscription-Token`. A
 * key it does not accept answers 401, or 422 with `SUBSCRIPTION_TOKEN_INVALID`.
 */
export const braveAdapter: SearchAdapter = {
  request(query, target) {
    const url = endpoint(target.baseUrl, '/res/v1/web/search');
    url.searchParams.set('q', query.query);
    url.searchParams.set('count', String(Math.min(query.count, BRAVE_MAX_COUNT)));
    if (query.freshness) url.searchParams.set('freshness', FRESHNESS[query.freshness]);
    return {
      method: 'GET',
      url,
      headers: { accept: 'application/json', 'x-subscription-token': target.apiKey ?? '' },
    };
  },
  parse(json) {
    return (readAnswer(answerSchema, json, 'Brave').web?.results ?? []).map((result) => ({
      title: result.title ?? '',
      url: result.url,
      snippet: result.description ?? '',
      published: result.page_age ?? result.age ?? undefined,
    }));
  },
  explain(status, text) {
    if (status === 422 && text.includes('SUBSCRIPTION_TOKEN_INVALID'))
      return { failure: 'auth', reason: 'refused its key (422 SUBSCRIPTION_TOKEN_INVALID)' };
    return undefined;
  },
};
