import { FakeClock } from '@openlegion/infra/clock';
import { isOpenLegionError } from '@openlegion/protocol';
import { describe, expect, it } from 'vitest';
import { addResults, normalisedUrl } from './result-cleaner.js';
import { SearchCache } from './search-cache.js';
import { checkedQuery } from './search-query.js';

describe('normalisedUrl', () => {
  it('makes the spellings of one page one key', () => {
    const spellings = [
      'https://www.Example.org/a/b/?utm_source=x&z=1&a=2#top',
      'http://example.org/a/b?a=2&z=1',
      'https://example.org:443/a/b?fbclid=1&a=2&z=1',
    ];
    expect(new Set(spellings.map(normalisedUrl))).toEqual(new Set(['example.org/a/b?a=2&z=1']));
  });

  it('has no key for what is not an http(s) URL', () => {
    expect(normalisedUrl('javascript:alert(1)')).toBeUndefined();
    expect(normalisedUrl('not a url')).toBeUndefined();
  });
});

describe('addResults', () => {
  it('cleans markup and entities, drops non-web URLs and duplicates, and stops at the count', () => {
    const into = { results: [], seen: new Set<string>() };
    addResults(
      into,
      [
        {
          title: 'A &amp; <b>B</b>',
          url: 'https://example.org/a',
          snippet: 'one <strong>two</strong>\n three',
        },
        { title: 'evil', url: 'javascript:alert(1)', snippet: '' },
        { title: 'A again', url: 'https://www.example.org/a/', snippet: '' },
        { title: '', url: 'https://example.org/b', snippet: 'b', published: '2026-01-02' },
        { title: 'C', url: 'https://example.org/c', snippet: 'c' },
      ],
      'brave',
      2,
    );
    expect(into.results).toEqual([
      { title: 'A & B', url: 'https://example.org/a', snippet: 'one two three', provider: 'brave' },
      {
        title: 'https://example.org/b',
        url: 'https://example.org/b',
        snippet: 'b',
        published: '2026-01-02',
        provider: 'brave',
      },
    ]);
  });
});

describe('checkedQuery', () => {
  it('makes control characters and runs of space one space', () => {
    expect(checkedQuery('  sqlite\u0000vec\n\n extension\u200b ')).toBe('sqlite vec extension');
  });

  it('counts characters, not UTF-16 units, against the cap', () => {
    expect(checkedQuery('🦀'.repeat(400))).toHaveLength(800);
    try {
      checkedQuery('🦀'.repeat(401));
      expect.unreachable();
    } catch (error) {
      expect(isOpenLegionError(error) && error.code).toBe('SEARCH_QUERY_INVALID');
    }
  });
});

describe('SearchCache', () => {
  it('forgets an answer once its time is up', () => {
    const clock = new FakeClock(0);
    const cache = new SearchCache<number>({ clock, ttlMs: 1_000, maxEntries: 10 });
    cache.set('q', 1);
    clock.advance(999);
    expect(cache.get('q')).toBe(1);
    clock.advance(1);
    expect(cache.get('q')).toBeUndefined();
  });

  it('drops the least recently used answer past its size', () => {
    const cache = new SearchCache<number>({ clock: new FakeClock(0), ttlMs: 1_000, maxEntries: 2 });
    cache.set('a', 1);
    cache.set('b', 2);
    cache.get('a');
    cache.set('c', 3);
    expect([cache.get('a'), cache.get('b'), cache.get('c'), cache.size]).toEqual([1, undefined, 3, 2]);
  });

  it('keeps nothing when its time or size is 0', () => {
    const cache = new SearchCache<number>({ clock: new FakeClock(0), ttlMs: 0, maxEntries: 2 });
    cache.set('a', 1);
    expect(cache.get('a')).toBeUndefined();
  });
});
