import { describe, expect, it } from 'vitest';
import { chatLinks, chatUrl } from '../src/features/tokens/chatLinks.ts';
import { invalidIpEntry } from '../src/features/tokens/ipList.ts';

describe('token form helpers', () => {
  it('accepts IPv4/IPv6 addresses and CIDR ranges, and names the first bad line', () => {
    expect(invalidIpEntry('')).toBeUndefined();
    expect(invalidIpEntry('203.0.113.7\n10.0.0.0/8\n2001:db8::/32\n::1\n::ffff:10.0.0.1')).toBeUndefined();
    expect(invalidIpEntry('10.0.0.1\n999.1.1.1')).toBe('999.1.1.1');
    expect(invalidIpEntry('10.0.0.0/33')).toBe('10.0.0.0/33');
    expect(invalidIpEntry('2001:db8::/129')).toBe('2001:db8::/129');
    expect(invalidIpEntry('example.com')).toBe('example.com');
    expect(invalidIpEntry('1.2.3.4/8/9')).toBe('1.2.3.4/8/9');
  });

  it('builds chat links with the encoded address and the sk- key', () => {
    expect(chatLinks({ chats: [{ Next: 'https://x/#/?key={key}&url={address}' }] })).toEqual([
      { name: 'Next', template: 'https://x/#/?key={key}&url={address}' },
    ]);
    expect(chatLinks({ chats: 'nope' as never })).toBeUndefined();
    expect(chatLinks({})).toEqual([]);
    expect(chatUrl('https://x/?key={key}&url={address}', 'https://gw.example.com', 'abc')).toBe(
      'https://x/?key=sk-abc&url=https%3A%2F%2Fgw.example.com',
    );
  });
});
