import { describe, expect, it } from 'vitest';
import { browserConfigFromSelf, createBrowserSession } from './create-browser-session.js';

const self = { tier: 'basic' as const, evaluate: false, idle_timeout_ms: 60_000 };

describe('browserConfigFromSelf', () => {
  it('takes the tier and idle timeout from /mesh/self and the proxy with credentials from the env', () => {
    const config = browserConfigFromSelf(self, { env: { HTTPS_PROXY: 'http://agent:tok@172.20.0.1:8421' } });
    expect(config).toEqual({
      tier: 'basic',
      profileDir: '/data/browser',
      proxy: { server: 'http://172.20.0.1:8421', username: 'agent', password: 'tok' },
      idleTimeoutMs: 60_000,
    });
  });

  it('uses no proxy outside the mesh, and passes the cdp endpoint through', () => {
    const config = browserConfigFromSelf(
      { ...self, tier: 'cdp', cdp_url: 'ws://relay:9222/cdp' },
      { env: {}, profileDir: '/tmp/p' },
    );
    expect(config).toMatchObject({
      tier: 'cdp',
      cdpUrl: 'ws://relay:9222/cdp',
      proxy: null,
      profileDir: '/tmp/p',
    });
  });
});

describe('createBrowserSession', () => {
  it('launches nothing until a tool runs', () => {
    expect(createBrowserSession({ profileDir: '/tmp/unused', proxy: null }).isRunning).toBe(false);
  });

  it('reports egress refusals as such only when its own proxy carries the traffic', () => {
    const proxy = { server: 'http://127.0.0.1:1' };
    expect(createBrowserSession({ profileDir: '/tmp/unused', proxy }).proxied).toBe(true);
    expect(createBrowserSession({ profileDir: '/tmp/unused', proxy: null }).proxied).toBe(false);
    expect(
      createBrowserSession({ profileDir: '/tmp/unused', proxy, tier: 'cdp', cdpUrl: 'ws://x' }).proxied,
    ).toBe(false);
  });
});
