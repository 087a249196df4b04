import { describe, expect, it } from 'vitest';
import { compileAllowList, invalidAllowEntries, normaliseAllowList } from '../src/infra/ip-allow.ts';

describe('token IP allow lists', () => {
  it('is open when empty', () => {
    const list = compileAllowList('  \n ');
    expect(list.open).toBe(true);
    expect(list.allows('203.0.113.9')).toBe(true);
  });

  it('matches single IPv4 addresses and CIDR ranges', () => {
    const list = compileAllowList('192.168.1.7\n10.0.0.0/8\n172.16.4.0/22');
    expect(list.allows('192.168.1.7')).toBe(true);
    expect(list.allows('192.168.1.8')).toBe(false);
    expect(list.allows('10.255.3.4')).toBe(true);
    expect(list.allows('11.0.0.1')).toBe(false);
    expect(list.allows('172.16.7.255')).toBe(true);
    expect(list.allows('172.16.8.0')).toBe(false);
  });

  it('matches IPv6 addresses and ranges', () => {
    const list = compileAllowList('2001:db8::/32\n::1\nfe80::1%eth0');
    expect(list.allows('2001:db8:1234::5')).toBe(true);
    expect(list.allows('2001:db9::1')).toBe(false);
    expect(list.allows('::1')).toBe(true);
    expect(list.allows('0:0:0:0:0:0:0:1')).toBe(true);
    expect(list.allows('fe80::1')).toBe(true);
    expect(list.allows('fe80::2')).toBe(false);
  });

  it('treats IPv4-mapped IPv6 client addresses as their IPv4 address', () => {
    const list = compileAllowList('10.0.0.0/8');
    expect(list.allows('::ffff:10.1.2.3')).toBe(true);
    expect(list.allows('::ffff:11.1.2.3')).toBe(false);
  });

  it('refuses garbage instead of matching it', () => {
    expect(compileAllowList('10.0.0.1').allows('not an ip')).toBe(false);
    expect(
      invalidAllowEntries('10.0.0.1\n10.0.0.0/33\n300.1.1.1\nfoo\n::1/129\n1.2.3.4/x\n2001:db8::/64'),
    ).toEqual(['10.0.0.0/33', '300.1.1.1', 'foo', '::1/129', '1.2.3.4/x']);
    expect(normaliseAllowList(' 1.2.3.4 \r\n\r\n5.6.7.0/24,9.9.9.9')).toBe('1.2.3.4\n5.6.7.0/24\n9.9.9.9');
  });

  it('is cheap on the hot path', () => {
    const list = compileAllowList(Array.from({ length: 200 }, (_, i) => `10.${i}.0.0/16`).join('\n'));
    // CPU time, not wall time: a machine busy with other work must not fail the test.
    const started = process.cpuUsage();
    for (let i = 0; i < 100_000; i++) list.allows('203.0.113.5');
    const used = process.cpuUsage(started);
    expect((used.user + used.system) / 1000).toBeLessThan(2000);
  });
});
