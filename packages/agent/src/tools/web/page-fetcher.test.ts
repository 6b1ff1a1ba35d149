import { describe, expect, it } from 'vitest';
import { proxyFromEnv } from './page-fetcher.js';

describe('proxyFromEnv', () => {
  it('reads the proxy variables the host gives an agent, in either case', () => {
    expect(
      proxyFromEnv({
        https_proxy: 'http://a:t@10.0.0.1:8421',
        HTTP_PROXY: 'http://a:t@10.0.0.1:8421',
        no_proxy: 'localhost,127.0.0.1',
      }),
    ).toEqual({
      httpProxy: 'http://a:t@10.0.0.1:8421',
      httpsProxy: 'http://a:t@10.0.0.1:8421',
      noProxy: 'localhost,127.0.0.1',
    });
  });

  it('is empty when no proxy is set, so pages are fetched directly', () => {
    expect(proxyFromEnv({ HTTP_PROXY: '', PATH: '/bin' })).toEqual({});
  });
});
