import { describe, expect, it } from 'vitest';
import { TokenRegistry } from './index.js';

describe('TokenRegistry', () => {
  it('identifies the agent a minted token belongs to', () => {
    const tokens = new TokenRegistry();
    const a = tokens.mint('a');
    const b = tokens.mint('b');
    expect(tokens.identify(a)).toBe('a');
    expect(tokens.identify(b)).toBe('b');
  });

  it('mints 32 random bytes as base64url', () => {
    const token = new TokenRegistry().mint('a');
    expect(token).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(Buffer.from(token, 'base64url')).toHaveLength(32);
  });

  it('rejects a different token of equal length', () => {
    const tokens = new TokenRegistry();
    const token = tokens.mint('a');
    const forged = `${token.slice(0, -1)}${token.endsWith('A') ? 'B' : 'A'}`;
    expect(forged).toHaveLength(token.length);
    expect(tokens.identify(forged)).toBeUndefined();
  });

  it('rejects an empty token', () => {
    const tokens = new TokenRegistry();
    tokens.mint('a');
    expect(tokens.identify('')).toBeUndefined();
  });

  it('replaces the previous token when an agent is minted again', () => {
    const tokens = new TokenRegistry();
    const first = tokens.mint('a');
    const second = tokens.mint('a');
    expect(second).not.toBe(first);
    expect(tokens.identify(first)).toBeUndefined();
    expect(tokens.identify(second)).toBe('a');
  });

  it('forgets a revoked token', () => {
    const tokens = new TokenRegistry();
    const token = tokens.mint('a');
    tokens.revoke('a');
    expect(tokens.identify(token)).toBeUndefined();
    expect(tokens.tokenFor('a')).toBeUndefined();
  });

  it('gives the host the current token of an agent', () => {
    const tokens = new TokenRegistry();
    const token = tokens.mint('a');
    expect(tokens.tokenFor('a')).toBe(token);
  });
});

describe('TokenRegistry proxy tokens', () => {
  it('mints a separate proxy token that only identifyProxy accepts', () => {
    const tokens = new TokenRegistry();
    const mesh = tokens.mint('a');
    const proxy = tokens.proxyTokenFor('a');
    expect(proxy).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(proxy).not.toBe(mesh);
    expect(tokens.identifyProxy(proxy ?? '')).toBe('a');
    expect(tokens.identify(proxy ?? '')).toBeUndefined();
    expect(tokens.identifyProxy(mesh)).toBeUndefined();
  });

  it('replaces and revokes the proxy token with the mesh token', () => {
    const tokens = new TokenRegistry();
    tokens.mint('a');
    const first = tokens.proxyTokenFor('a') ?? '';
    tokens.mint('a');
    expect(tokens.identifyProxy(first)).toBeUndefined();
    const second = tokens.proxyTokenFor('a') ?? '';
    tokens.revoke('a');
    expect(tokens.identifyProxy(second)).toBeUndefined();
    expect(tokens.proxyTokenFor('a')).toBeUndefined();
  });
});
