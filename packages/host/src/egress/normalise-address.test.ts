import { describe, expect, it } from 'vitest';
import { normaliseAddress } from './normalise-address.js';

describe('normaliseAddress', () => {
  it('unwraps the IPv6 forms that are aliases of an IPv4 address, in any spelling', () => {
    for (const [spelling, form] of [
      ['::ffff:127.0.0.1', 'IPv4-mapped'],
      ['0:0:0:0:0:FFFF:7F00:0001', 'IPv4-mapped'],
      ['::ffff:0:7f00:1', 'IPv4-translated (RFC 6145)'],
      ['64:ff9b::127.0.0.1', 'NAT64 (RFC 6052)'],
      ['::7f00:1', 'IPv4-compatible'],
    ] as const) {
      expect(normaliseAddress(spelling), spelling).toEqual({
        address: expect.anything(),
        text: '127.0.0.1',
        unwrappedFrom: form,
      });
    }
  });

  it('reads IPv4 in the loose forms a resolver reads (short, decimal, hex, octal)', () => {
    for (const spelling of ['127.1', '2130706433', '0x7f000001', '0x7f.0.0.1', '0177.0.0.1', '127.0.1']) {
      expect(normaliseAddress(spelling)?.text, spelling).toBe('127.0.0.1');
    }
  });

  it('keeps the IPv6 unspecified and loopback addresses as IPv6, and other IPv6 canonical', () => {
    expect(normaliseAddress('0:0:0:0:0:0:0:1')?.text).toBe('::1');
    expect(normaliseAddress('::')?.text).toBe('::');
    expect(normaliseAddress('2002:7F00:0001:0000:0000:0000:0000:0001')).toEqual({
      address: expect.anything(),
      text: '2002:7f00:1::1',
    });
  });

  it('refuses names, zone ids and out-of-range parts', () => {
    for (const text of [
      'example.test',
      'fe80::1%eth0',
      '256.1.1.1',
      '1:2:3:4:5:6:7:8:9',
      '',
      '::ffff:1.2.3.4.5',
    ]) {
      expect(normaliseAddress(text), text).toBeUndefined();
    }
  });
});
