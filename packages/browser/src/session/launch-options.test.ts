import { describe, expect, it } from 'vitest';
import { chromiumArgs, proxyFromEnv, stealthUserAgent } from './launch-options.js';

describe('proxyFromEnv', () => {
  it('splits the agent credentials out of HTTPS_PROXY', () => {
    expect(proxyFromEnv({ HTTPS_PROXY: 'http://agent:t%40k@10.0.0.1:8421' })).toEqual({
      server: 'http://10.0.0.1:8421',
      username: 'agent',
      password: 't@k',
    });
  });

  it('falls back to HTTP_PROXY, passes NO_PROXY as the bypass list, and is undefined without either', () => {
    expect(proxyFromEnv({ HTTP_PROXY: 'http://gw:3128', NO_PROXY: 'gw' })).toEqual({
      server: 'http://gw:3128',
      bypass: 'gw',
    });
    expect(proxyFromEnv({})).toBeUndefined();
  });

  it('rejects a proxy that is not a URL, naming the variable', () => {
    expect(() => proxyFromEnv({ HTTPS_PROXY: 'not a url' })).toThrow(/HTTPS_PROXY\/HTTP_PROXY is not a URL/);
  });
});

describe('chromiumArgs', () => {
  it('adds the stealth switches only to the stealth tier', () => {
    expect(chromiumArgs('basic')).not.toContain('--disable-blink-features=AutomationControlled');
    expect(chromiumArgs('stealth')).toContain('--disable-blink-features=AutomationControlled');
    expect(chromiumArgs('basic', ['--x'])).toContain('--no-sandbox');
    expect(chromiumArgs('basic', ['--x']).at(-1)).toBe('--x');
  });

  it('gives stealth a desktop Chrome user agent without "Headless"', () => {
    expect(stealthUserAgent('156.0.8078.79')).toMatch(/Chrome\/156\.0\.0\.0 Safari/);
    expect(stealthUserAgent('156.0.8078.79')).not.toMatch(/Headless/);
  });
});
