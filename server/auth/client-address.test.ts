import { describe, expect, it } from 'vitest';
import { clientAddress, normaliseAddress } from './client-address';

const h = (xff?: string) => new Headers(xff ? { 'x-forwarded-for': xff } : {});

describe('clientAddress: the throttling bucket of a caller', () => {
  it('without a trusted proxy, X-Forwarded-For is ignored (a client can send anything)', () => {
    expect(clientAddress(h('1.2.3.4'), { trustProxy: false })).toBe('direct');
    expect(clientAddress(h('1.2.3.4'), { trustProxy: false, socketAddress: '::ffff:10.0.0.5' })).toBe('10.0.0.5');
  });

  it('behind a trusted proxy, the hop the proxy appended (the last one) counts', () => {
    expect(clientAddress(h('6.6.6.6, 203.0.113.9'), { trustProxy: true })).toBe('203.0.113.9');
    expect(clientAddress(h('garbage'), { trustProxy: true, socketAddress: '127.0.0.1' })).toBe('127.0.0.1');
    expect(clientAddress(h(), { trustProxy: true })).toBe('direct');
  });

  it('normalises: IPv6 by /64, mapped IPv4, ports; rejects non-addresses', () => {
    expect(normaliseAddress('2001:db8:0:1::7')).toBe('2001:db8:0:1::/64');
    expect(normaliseAddress('[2001:DB8:0:1:ffff::9]:443')).toBe('2001:db8:0:1::/64');
    expect(normaliseAddress('::1')).toBe('0:0:0:0::/64');
    expect(normaliseAddress('192.0.2.1:5555')).toBe('192.0.2.1');
    expect(normaliseAddress('::ffff:192.0.2.1')).toBe('192.0.2.1');
    expect(normaliseAddress('evil.example')).toBeNull();
  });
});
