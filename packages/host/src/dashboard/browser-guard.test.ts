import type { FastifyRequest } from 'fastify';
import { describe, expect, it } from 'vitest';
import { allowedHosts, checkBrowserRequest, readCookie } from './browser-guard.js';

const hosts = allowedHosts(8700, ['ops.internal', 'other:9000']);
const request = (localAddress: string, headers: Record<string, string>, method = 'GET') =>
  ({ socket: { localAddress }, headers, method }) as unknown as FastifyRequest;

describe('checkBrowserRequest', () => {
  it('refuses a request that came in on the mesh gateway address, not loopback', () => {
    expect(() => checkBrowserRequest(request('172.18.0.1', { host: '127.0.0.1:8700' }), hosts)).toThrow(
      expect.objectContaining({
        code: 'DASHBOARD_NOT_LOOPBACK',
        message:
          "the dashboard is served only on the host's loopback address (open http://127.0.0.1:<mesh.port>/ui on the host's machine)",
      }),
    );
  });

  it('takes loopback in every spelling, and the allowed names with the mesh port or their own', () => {
    for (const address of ['127.0.0.1', '::1', '::ffff:127.0.0.1'])
      for (const host of [
        '127.0.0.1:8700',
        'localhost:8700',
        '[::1]:8700',
        'OPS.internal:8700',
        'other:9000',
      ])
        expect(() => checkBrowserRequest(request(address, { host }), hosts)).not.toThrow();
  });

  it('refuses another port, an unknown name, and a change whose Origin is missing or foreign', () => {
    expect(() => checkBrowserRequest(request('127.0.0.1', { host: '127.0.0.1:8701' }), hosts)).toThrow(
      expect.objectContaining({ code: 'DASHBOARD_ORIGIN_REFUSED' }),
    );
    expect(() =>
      checkBrowserRequest(request('127.0.0.1', { host: '127.0.0.1:8700' }, 'POST'), hosts),
    ).toThrow(expect.objectContaining({ message: 'a change from a browser must say its Origin' }));
    for (const origin of ['null', 'http://127.0.0.1:8701', 'file://', 'http://evil.example:8700'])
      expect(() =>
        checkBrowserRequest(request('127.0.0.1', { host: '127.0.0.1:8700', origin }, 'POST'), hosts),
      ).toThrow(expect.objectContaining({ code: 'DASHBOARD_ORIGIN_REFUSED' }));
    expect(() =>
      checkBrowserRequest(
        request('127.0.0.1', { host: '127.0.0.1:8700', origin: 'http://localhost:8700' }, 'POST'),
        hosts,
      ),
    ).not.toThrow();
  });
});

describe('readCookie', () => {
  it('finds one cookie among several', () => {
    expect(readCookie('a=1; openlegion_session_8700=abc; b=2', 'openlegion_session_8700')).toBe('abc');
    expect(readCookie('a=1', 'openlegion_session_8700')).toBeUndefined();
    expect(readCookie(undefined, 'x')).toBeUndefined();
  });
});
