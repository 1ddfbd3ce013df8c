import { describe, expect, it } from 'vitest';
import { PEER_HEADER, withPeerHeader } from '@/server/http/peer-header.mjs';
import { clientAddress, frontPeerAddress, normaliseAddress } from './client-address';

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

  it('the peer header counts only in a process served by our HTTP front, which overwrites it', () => {
    const peer = (address: string) => new Headers({ [PEER_HEADER]: address, 'x-forwarded-for': '6.6.6.6' });
    // A plain `next start` passes the header through from the client: ignored.
    expect(frontPeerAddress(peer('10.0.0.5'))).toBeNull();
    expect(clientAddress(peer('10.0.0.5'), { trustProxy: false, socketAddress: frontPeerAddress(peer('10.0.0.5')) })).toBe('direct');
    withPeerHeader(async () => {}); // what scripts/web-server.mjs installs at start
    // Two different peers, two buckets (no longer one shared `direct`).
    const bucket = (address: string) => clientAddress(peer(address), { trustProxy: false, socketAddress: frontPeerAddress(peer(address)) });
    expect(bucket('10.0.0.5')).toBe('10.0.0.5');
    expect(bucket('::ffff:10.0.0.6')).toBe('10.0.0.6');
    expect(bucket('2001:db8:0:1::7')).toBe('2001:db8:0:1::/64');
    expect(frontPeerAddress(new Headers())).toBeNull(); // in-process callers: no header, fallback stays
    // Behind a trusted proxy its hop wins; the peer (the proxy) is only the fallback.
    expect(clientAddress(peer('10.0.0.5'), { trustProxy: true, socketAddress: frontPeerAddress(peer('10.0.0.5')) })).toBe('6.6.6.6');
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
