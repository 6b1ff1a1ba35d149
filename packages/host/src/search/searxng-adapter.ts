import { z } from 'zod';
import { readAnswer } from './read-answer.js';
import type { SearchAdapter } from './search-adapter.js';
import { endpoint } from './search-adapter.js';

const answerSchema = z.looseObject({
  results: z.array(
    z.looseObject({
      url: z.string(),
      title: z.string().nullish(),
      content: z.string().nullish(),
      publishedDate: z.string().nullish(),
    }),
  ),
});

/**
 * SearXNG's JSON API: `GET /search?q=…&format=json` (no key; the instance is the operator's own).
 * It has no count parameter, so the first page is cut to the count. An instance without `json`
 * under `search.formats` in its settings.yml answers 403.
 */
export const searxngAdapter: SearchAdapter = {
  request(query, target) {
    const url = endpoint(target.baseUrl, '/search');
    url.searchParams.set('q', query.query);
    url.searchParams.set('format', 'json');
    url.searchParams.set('pageno', '1');
    if (query.freshness) url.searchParams.set('time_range', query.freshness);
    return { method: 'GET', url, headers: { accept: 'application/json' } };
  },
  parse(json) {
    return readAnswer(answerSchema, json, 'SearXNG').results.map((result) => ({
      title: result.title ?? '',
      url: result.url,
      snippet: result.content ?? '',
      published: result.publishedDate ?? undefined,
    }));
  },
  explain(status) {
    if (status === 403)
      return {
        failure: 'auth',
        reason:
          'answered 403: the instance does not serve format=json; add json under search.formats in its settings.yml (see docs/search.md)',
      };
    return undefined;
  },
};
