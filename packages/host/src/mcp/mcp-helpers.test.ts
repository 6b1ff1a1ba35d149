import { describe, expect, it } from 'vitest';
import { rpcSummary } from './rpc-summary.js';
import { mcpAddressRefusal } from './upstream-address.js';

describe('rpcSummary', () => {
  const of = (value: unknown) => rpcSummary(Buffer.from(JSON.stringify(value)));

  it('names the method, and the tool of a tools/call', () => {
    expect(of({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'echo' } })).toEqual({
      method: 'tools/call',
      tool: 'echo',
    });
    expect(of({ jsonrpc: '2.0', id: 1, method: 'tools/list' })).toEqual({ method: 'tools/list' });
    expect(of([{ method: 'ping' }, { method: 'ping' }])).toEqual({ method: 'ping', batch: 2 });
    expect(of({ jsonrpc: '2.0', id: 1, result: {} })).toEqual({ method: 'response' });
  });

  it('keeps no name an agent shaped to spoil a log line', () => {
    expect(of({ method: 'tools/call\nFAKE', params: { name: 'x' } })).toEqual({ method: 'unknown' });
    expect(of({ method: 'tools/call', params: { name: 'a b' } })).toEqual({ method: 'tools/call' });
    expect(rpcSummary(Buffer.from('not json'))).toEqual({ method: 'unknown' });
  });
});

describe('mcpAddressRefusal', () => {
  it('lets the operator reach loopback and private addresses', () => {
    for (const address of ['127.0.0.1', '::1', '10.1.2.3', '192.168.1.1', 'fd00::1', '8.8.8.8'])
      expect(mcpAddressRefusal(address)).toBeUndefined();
  });

  it('refuses link-local (metadata), unspecified, multicast and IPv4 in IPv6 clothing of them', () => {
    expect(mcpAddressRefusal('169.254.169.254')).toBe(
      '169.254.169.254 is a link-local (cloud metadata) address',
    );
    expect(mcpAddressRefusal('::ffff:169.254.169.254')).toBe(
      '169.254.169.254 is a link-local (cloud metadata) address',
    );
    expect(mcpAddressRefusal('0.0.0.0')).toBe('0.0.0.0 is a this-network address');
    expect(mcpAddressRefusal('fe80::1')).toBe('fe80::1 is a link-local address');
    expect(mcpAddressRefusal('224.0.0.1')).toBe('224.0.0.1 is a multicast address');
  });
});
