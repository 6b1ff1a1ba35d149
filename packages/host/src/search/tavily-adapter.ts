import { z } from 'zod';
import { readAnswer } from './read-answer.js';
import type { SearchAdapter } from './search-adapter.js';
import { endpoint } from './search-adapter.js';

/** Tavily takes at most 20 results a request. */
const TAVILY_MAX_RESULTS = 20;

const answerSchema = z.looseObject({
  results: z.array(
    z.looseObject({
      title: z.string().nullish(),
      url: z.string(),
      content: z.string().nullish(),
      published_date: z.string().nullish(),
    }),
  ),
});

/**
 * Tavily: `POST /search` with a JSON body and the key as `Authorization: Bearer`. It answers 401
 * for a key it does not know, 432/433 when the plan's or the pay-as-you-go limit is reached.
 */
export const tavilyAdapter: SearchAdapter = {
  request(query, target) {
    return {
      method: 'POST',
      url: endpoint(target.baseUrl, '/search'),
      headers: {
        accept: 'application/json',
        'content-type': 'application/json',
        authorization: `Bearer ${target.apiKey ?? ''}`,
      },
      body: JSON.stringify({
        query: query.query,
        max_results: Math.min(query.count, TAVILY_MAX_RESULTS),
        search_depth: 'basic',
        ...(query.freshness ? { time_range: query.freshness } : {}),
      }),
    };
  },
  parse(json) {
    return readAnswer(answerSchema, json, 'Tavily').results.map((result) => ({
      title: result.title ?? '',
      url: result.url,
      snippet: result.content ?? '',
      published: result.published_date ?? undefined,
    }));
  },
  explain(status) {
    if (status === 432 || status === 433)
      return { failure: 'billing', reason: `answered ${status}: the plan's request limit is reached` };
    return undefined;
  },
};
