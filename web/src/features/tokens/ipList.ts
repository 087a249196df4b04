/** Browser-side check of an IP allow list (the server checks again): IPv4/IPv6 addresses and CIDR ranges. */
const V4 = /^(25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)(\.(25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)){3}$/;

function isIPv6(text: string): boolean {
  if (!text.includes(':') || /[^0-9a-fA-F:.]/.test(text)) return false;
  try {
    // The URL parser is the browser's own strict IPv6 parser.
    return new URL(`http://[${text}]/`).hostname.length > 2;
  } catch {
    return false;
  }
}

export function ipEntries(text: string | undefined): string[] {
  return (text ?? '')
    .split(/[\n\r,\s]+/)
    .map((s) => s.trim())
    .filter(Boolean);
}

export function invalidIpEntry(text: string | undefined): string | undefined {
  for (const entry of ipEntries(text)) {
    const [addr, bits, extra] = entry.split('/');
    const max = V4.test(addr) ? 32 : isIPv6(addr) ? 128 : 0;
    if (max === 0 || extra !== undefined) return entry;
    if (bits !== undefined && (!/^\d{1,3}$/.test(bits) || Number(bits) > max)) return entry;
  }
  return undefined;
}
