import { BlockList, isIP } from 'node:net';

/**
 * Token IP allow lists: one entry per line, each a single IPv4/IPv6 address or a CIDR range.
 * Parse once (when a token is loaded), then `allows(ip)` is a native lookup on the relay's hot path.
 * IPv4-mapped IPv6 addresses (::ffff:1.2.3.4) match IPv4 entries and the other way round.
 */
export interface AllowList {
  /** True when the list is empty (no restriction). */
  readonly open: boolean;
  allows(ip: string): boolean;
}

export interface AllowEntry {
  address: string;
  family: 'ipv4' | 'ipv6';
  prefix: number;
}

/** Splits a textarea into trimmed, non-empty lines (commas and spaces also separate entries). */
export function allowListLines(text: string | null | undefined): string[] {
  return (text ?? '')
    .split(/[\n\r,\s]+/)
    .map((l) => l.trim())
    .filter(Boolean);
}

/** Parses one entry; undefined when it is neither an address nor a CIDR range. */
export function parseAllowEntry(entry: string): AllowEntry | undefined {
  const slash = entry.indexOf('/');
  const address = stripZone(slash < 0 ? entry : entry.slice(0, slash));
  const kind = isIP(address);
  if (kind === 0) return undefined;
  const family = kind === 4 ? 'ipv4' : 'ipv6';
  const max = kind === 4 ? 32 : 128;
  if (slash < 0) return { address, family, prefix: max };
  const bits = entry.slice(slash + 1);
  if (!/^\d{1,3}$/.test(bits) || Number(bits) > max) return undefined;
  return { address, family, prefix: Number(bits) };
}

/** The entries that do not parse, for a 400 that names them. */
export function invalidAllowEntries(text: string | null | undefined): string[] {
  return allowListLines(text).filter((l) => !parseAllowEntry(l));
}

/** Canonical stored form: one valid entry per line. */
export function normaliseAllowList(text: string | null | undefined): string {
  return allowListLines(text).join('\n');
}

export function compileAllowList(text: string | null | undefined): AllowList {
  const entries = allowListLines(text)
    .map(parseAllowEntry)
    .filter((e): e is AllowEntry => !!e);
  if (entries.length === 0) return { open: true, allows: () => true };
  const list = new BlockList();
  for (const e of entries) list.addSubnet(e.address, e.prefix, e.family);
  return {
    open: false,
    allows(ip) {
      const address = stripZone(ip);
      const kind = isIP(address);
      if (kind === 0) return false;
      return list.check(address, kind === 4 ? 'ipv4' : 'ipv6');
    },
  };
}

const stripZone = (ip: string) => {
  const pct = ip.indexOf('%');
  return pct < 0 ? ip : ip.slice(0, pct);
};
